import { createHash } from 'node:crypto';
import { SimClock } from '../../src/sim/clock.js';
import { World } from '../../src/sim/world.js';
import { cb58Encode } from '../../src/base/cb58.js';
import { FROZEN_AFTER_MS } from './world-40.js';

// The fuzzer's world: four validators, their blocks and one aggregator probe, and the model of
// what is true in it. The model is what the simulator serves when no distortion is active; the
// daemon's alerts are held to it after every clean poll.

function idBytes(seed: string, size: number): Buffer {
  return createHash('sha256').update(seed).digest().subarray(0, size);
}

export const NODES = ['a', 'b', 'c', 'd'].map((s) => `NodeID-${cb58Encode(idBytes(`fuzz-node-${s}`, 20))}`);
/** The one node whose validation started after Helicon: 90% of uptime earns its reward, not 80%. */
export const HELICON_NODE = NODES[0] as string;
export const SIG_TX = cb58Encode(idBytes('fuzz-sig', 32));
const DAY_S = 86_400;
/** 2026-06-01T00:00:00Z: the world's start. */
export const START_MS = Date.UTC(2026, 5, 1);
/** Helicon activated 40 days before the start. */
export const HELICON_S = START_MS / 1000 - 40 * DAY_S;
export const SILENT_FOR_S = 2 * 3600;
export const MIN_VERSION = '1.14.0';
/** nAVAX: 1,000 AVAX. */
export const MIN_CAPACITY = 1_000_000_000_000n;
/** A second validator-health rule, with `uptime: false` and no other check: nothing of it ever fires. */
export const HEALTH_OFF = 'health-off';
/** validator-health's `uptime.warning` (the rule's critical level is the requirement, 80% or 90%). */
export const UPTIME_WARNING = 85;
/** Its `uptime.hysteresis` (the default): a tier is left only above its level + this. */
export const UPTIME_HYSTERESIS = 1;
/** Its `budget` (the defaults): a warning once the downtime budget is under a day, or under 10% of the allowance. */
const BUDGET_WARN_S = 86_400;
const BUDGET_WARN_SHARE = 0.1;
/** The budget's warning is left only 10% above where it is entered. */
const BUDGET_HYSTERESIS = 1.1;

export interface NodeModel {
  nodeId: string;
  txHash: string;
  status: 'active' | 'completed';
  start: number;
  end: number;
  uptime: number;
  version: string;
  /** nAVAX. */
  capacity: string;
  /** The newest P-chain block the node proposed (unix s). */
  lastBlock: number;
  periods: number;
  /** What the node's own API says (node-health). */
  api: NodeApiModel;
  /**
   * The uptime tier the daemon holds for the node after the last poll the model judged (where
   * its hysteresis starts from): none, a warning, critical, past saving; 'unknown' after a
   * reading near a boundary, until a reading that needs no history.
   */
  tier?: UptimeTier | 'unknown';
}

export type UptimeTier = 'warning' | 'critical' | 'lost';

/** The node's own view: a failing health check, another NodeID behind the API, the stake that would reward it. */
export interface NodeApiModel {
  failing: boolean;
  other: boolean;
  /** Percent: 100, 85 (a warning) or 70 (critical): no value near a level, so hysteresis never decides. */
  stake: number;
  /** Since when (ms) each condition has held: node-health fires after NODE_FOR_MS. */
  since: Partial<Record<'failing' | 'other' | 'stake', number>>;
}

/** node-health's `for`: a condition fires once it has held this long. */
export const NODE_FOR_MS = 2 * 60_000;
/** The NodeID a node restarted with another staking key answers with. */
export const STRANGER = `NodeID-${cb58Encode(idBytes('fuzz-stranger', 20))}`;
export const FAILING_CHECK = 'database';

/** What is true; the daemon is held to it. */
export interface Model {
  nowMs: number;
  nodes: NodeModel[];
  /** Nodes a reload took out of the inventory and the rules: nothing of theirs fires. */
  unwatched?: Set<string>;
  /** How far the daemon's wall clock was stepped off the world's (steps-clock.ts); its steady clock is the world's. */
  wallStepMs?: number;
  /** The L1 tip frozen since its last tick (steps-baseline-l1.ts): l1-liveness's `rule/key` fires once it is frozenAfter old. */
  l1Frozen?: { key: string; node: string; tipMs: number };
}

/** A node the rules still watch: a reload step may have taken it out (a step about it then has nothing to show). */
export function watched(m: Model, node: string): boolean {
  return !m.unwatched?.has(node);
}

/** A node the rules watch, in an active validation: a step that needs it to send something. */
export function watchedActive(m: Model, node: string): boolean {
  return watched(m, node) && m.nodes.some((n) => n.nodeId === node && n.status === 'active');
}

export function txHashOf(node: string, period: number): string {
  return cb58Encode(idBytes(`${node}/period/${period}`, 32));
}

export function initialModel(): Model {
  const now = START_MS / 1000;
  const nodes = NODES.map((nodeId, i): NodeModel => {
    // The Helicon node started 10 days ago (after Helicon); the others 100 days ago (before).
    const start = now - (nodeId === HELICON_NODE ? 10 : 100) * DAY_S;
    // One validation ends within the warning window (validation-end fires from the start).
    const end = i === 3 ? now + 5 * DAY_S : start + 300 * DAY_S;
    // Something fires from the start, so odd answers meet firing alerts: b runs an old version, c has little capacity left.
    const version = i === 1 ? 'avalanchego/1.13.2' : 'avalanchego/1.14.1';
    const capacity = i === 2 ? '500000000000' : '6948766000000000';
    return { nodeId, txHash: txHashOf(nodeId, 0), status: 'active', start, end, uptime: 99.5, version, capacity, lastBlock: now - 600, periods: 0, api: { failing: false, other: false, stake: 100, since: {} } };
  });
  return { nowMs: START_MS, nodes };
}

/** A simulator world serving the model; its clock moves only when the fuzzer moves it. */
export function buildWorld(model: Model): World {
  const world = new World(new SimClock(model.nowMs, 0));
  for (const n of model.nodes) {
    world.addValidation('mainnet', periodInput(n), n.status);
    world.proposedBlocks.add({ network: 'mainnet', nodeId: n.nodeId, chain: 'p-chain', times: [n.lastBlock] });
  }
  world.signatureAggregator.set(SIG_TX, { fail: null });
  for (const n of model.nodes) syncNodeApi(world, n);
  return world;
}

/** Writes a node's own API model into the simulated node. */
export function syncNodeApi(world: World, n: NodeModel): void {
  world.nodes.set({
    nodeId: n.nodeId,
    failing: { [FAILING_CHECK]: n.api.failing ? 'database closed' : null },
    reportsNodeId: n.api.other ? STRANGER : null,
    rewardingStake: n.api.stake,
  });
}

function periodInput(n: NodeModel) {
  return {
    nodeId: n.nodeId,
    txHash: n.txHash,
    startTimestamp: n.start,
    endTimestamp: n.end,
    uptimePerformance: n.uptime,
    avalancheGoVersion: n.version,
    delegationCapacity: n.capacity,
  };
}

/** Writes a node's model into the world (after a real change). */
export function syncNode(world: World, n: NodeModel, newPeriod: boolean): void {
  if (newPeriod) {
    world.addValidation('mainnet', periodInput(n), n.status);
    return;
  }
  world.updateValidation(n.nodeId, { status: n.status, uptimePerformance: n.uptime, avalancheGoVersion: n.version, delegationCapacity: n.capacity }, n.txHash);
}

export function addBlock(world: World, n: NodeModel, at: number): void {
  n.lastBlock = at;
  world.proposedBlocks.add({ network: 'mainnet', nodeId: n.nodeId, chain: 'p-chain', times: [at] });
}

// ---- what the model says should fire

export interface Expected {
  /** `rule/key` of each state alert that must fire, with its severity (undefined: any). */
  firing: Map<string, string | undefined>;
  /** `rule/key` of the state alerts the model cannot judge now (near a boundary): not checked. */
  unsure: Set<string>;
  /** Each node's uptime tier after this poll, to keep when the poll is judged (`health/<node>:uptime` → node, tier). */
  tiers: Map<string, { node: NodeModel; tier: NodeModel['tier'] }>;
}

/** A verdict's severity: 'critical lost' (past saving) is a critical alert of its own tier. */
export function severityOf(verdict: string): string {
  return verdict.split(' ')[0] as string;
}

/**
 * The uptime tier a poll reading the node's uptime holds, coming from `was` (validator-health's
 * levels: under the requirement critical, under UPTIME_WARNING a warning, each left only above
 * it + the hysteresis; a downtime budget under its warning a warning, negative past saving);
 * 'near' when the budget is within a minute of one of its boundaries (not judged).
 */
export function uptimeTierOf(n: NodeModel, nowS: number, was: UptimeTier | undefined): UptimeTier | undefined | 'near' {
  const required = rewardThreshold(n);
  const length = n.end - n.start;
  const elapsed = Math.min(Math.max(nowS - n.start, 0), length);
  const budget = (n.uptime / 100) * elapsed + (length - elapsed) - (required / 100) * length;
  const allowance = ((100 - required) / 100) * length;
  const warnS = Math.min(BUDGET_WARN_S, BUDGET_WARN_SHARE * allowance);
  const lostMargin = Math.max(900, allowance * 0.01);
  if ([0, lostMargin, warnS, warnS * BUDGET_HYSTERESIS].some((b) => Math.abs(budget - b) < 60)) return 'near';
  if (budget < 0 || (was === 'lost' && budget < lostMargin)) return 'lost';
  const critical = required;
  const warning = Math.max(UPTIME_WARNING, critical);
  if (n.uptime < critical || ((was === 'critical' || was === 'lost') && n.uptime < critical + UPTIME_HYSTERESIS)) return 'critical';
  if (budget < warnS || (was !== undefined && budget < warnS * BUDGET_HYSTERESIS)) return 'warning';
  if (warning > critical && (n.uptime < warning || (was !== undefined && n.uptime < warning + UPTIME_HYSTERESIS))) return 'warning';
  return undefined;
}

/** The tier after this poll: what every possible history gives, when the model lost track of it. */
function nextTier(n: NodeModel, nowS: number): NodeModel['tier'] | 'near' {
  const histories: Array<UptimeTier | undefined> = n.tier === 'unknown' ? [undefined, 'warning', 'critical', 'lost'] : [n.tier];
  const after = new Set(histories.map((was) => uptimeTierOf(n, nowS, was)));
  if (after.has('near')) return 'near';
  return after.size === 1 ? ([...after][0] as UptimeTier | undefined) : 'unknown';
}

const SEMVER = /(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?/;

/** Older than 1.14.0: a pre-release of 1.14.0 is older than 1.14.0 (semver). */
export function versionOld(text: string): boolean {
  const m = SEMVER.exec(text);
  if (!m) return false;
  const [a, b, c] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (a !== 1) return a < 1;
  if (b !== 14) return b < 14;
  return c === 0 && m[4] !== undefined;
}

/** The uptime a validation needs for its reward: 90% after Helicon (ACP-267), 80% before. */
export function rewardThreshold(n: NodeModel): number {
  return n.start >= HELICON_S ? 90 : 80;
}

export function expected(model: Model): Expected {
  const firing = new Map<string, string | undefined>();
  const unsure = new Set<string>();
  const tiers: Expected['tiers'] = new Map();
  // A chain's timestamps can only be judged against the daemon's wall clock: a stepped one moves those verdicts.
  const nowS = Math.floor((model.nowMs + (model.wallStepMs ?? 0)) / 1000);
  for (const n of model.nodes) {
    const node = n.nodeId;
    if (model.unwatched?.has(node)) continue;
    if (n.status === 'active') {
      if (versionOld(n.version)) firing.set(`health/${node}:version`, undefined);
      if (BigInt(n.capacity) < MIN_CAPACITY) firing.set(`health/${node}:delegation-capacity`, undefined);
      // Uptime levels, exactly: each reading is judged from the tier the last one left.
      const key = `health/${node}:uptime`;
      const tier = nextTier(n, nowS);
      tiers.set(key, { node: n, tier: tier === 'near' ? 'unknown' : tier });
      if (tier === 'near' || tier === 'unknown') unsure.add(key);
      else if (tier !== undefined) firing.set(key, tier === 'lost' ? 'critical lost' : tier);
    } else tiers.set(`health/${node}:uptime`, { node: n, tier: undefined });
    // The node's own view, each condition once it has held for node-health's `for`.
    const held = (what: 'failing' | 'other' | 'stake', key: string, severity: string | undefined) => {
      const since = n.api.since[what];
      if (since === undefined) return;
      // Exactly: pending (nothing fires) until it has held `for` (a cron rule: no slack of half an interval).
      if (model.nowMs - since >= NODE_FOR_MS) firing.set(`node/${node}:${key}`, severity);
    };
    if (n.api.failing) held('failing', `health:${FAILING_CHECK}`, undefined);
    if (n.api.other) held('other', 'node-id', 'critical');
    if (n.api.stake < 90) held('stake', 'rewarding-stake', n.api.stake < 80 ? 'critical' : 'warning');
    // A node that does not validate proposes nothing: only a validating one is silent, since
    // its last block or its period's start (a re-stake), whichever is later.
    if (n.status !== 'active') continue;
    const silent = nowS - Math.max(n.lastBlock, n.start);
    if (Math.abs(silent - SILENT_FOR_S) < 120) unsure.add(`blocks/${node}:p-chain`);
    else if (silent > SILENT_FOR_S) firing.set(`blocks/${node}:p-chain`, undefined);
  }
  const frozen = model.l1Frozen;
  if (frozen && watched(model, frozen.node)) {
    // The node's block-building slot reaches frozenAfter then (5 s slots from the tip's 2 s tick).
    const past = model.nowMs - frozen.tipMs - FROZEN_AFTER_MS;
    if (Math.abs(past) < 5_000) unsure.add(frozen.key);
    else if (past > 0) firing.set(frozen.key, 'critical');
  }
  return { firing, unsure, tiers };
}
