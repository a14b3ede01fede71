import { z } from 'zod';
import type { L1Validator } from '../../api/schemas.js';
import { apiCall } from '../../api/catalog.js';
import { formatAvax } from '../../base/amount.js';
import { formatDuration, humanDuration } from '../../base/duration.js';
import { record } from '../../base/record.js';
import { ownTurn } from '../../base/timers.js';
import { isoSeconds } from '../format.js';
import { attempt, isFailed } from '../lookup.js';
import { nextState } from '../l1-burn.js';
import { settle, type Read } from '../node-calls.js';
import { currentEpoch, proposedHeight, type Epoch } from '../proposervm.js';
import type { Condition, GaugeSample, RuleKind } from '../types.js';
import { spread } from './spread.js';
import { nextSeen, verdict, SLOT_MS } from './frozen.js';
import { spec, state, type Spec, type State } from './schema.js';
import { weigh, type Member, type Weighing } from './weight.js';

// An L1's liveness (README.md): from the operator's L1 node, a tip whose epoch stands still
// while the P-Chain moves (frozen, while every health check stays green); from the Data API,
// the share of its weight active and running dry, against what consensus and Warp need.

/** One L1 as read this poll: each part settled on its own, so one failing call blinds no other. */
export interface L1Reading {
  subnetId: string;
  nodeId: string;
  blockchainId: Read<string>;
  epoch?: Read<Epoch>;
  proposed?: Read<number>;
  /** avalanche_proposervm_block_building_slot{chain}; undefined: not read. */
  slot?: number | undefined;
  /** avalanche_stake_percent_connected{chain} (0..1): the share of the L1's weight, inactive included, this node is connected to; undefined: not read. */
  connected?: number | undefined;
  /** /ext/health's verdict; undefined: not read. */
  healthy?: boolean | undefined;
  /** The whole L1's validators, inactive ones included; a string: why the read failed; undefined: weights off. */
  validators?: L1Validator[] | string;
}

export interface Observation {
  l1s: L1Reading[];
  steadyMs: number;
}

/** platform.validates {subnetID}: the blockchains of the subnet (vms/platformvm/service.go). */
const validatesReply = z.looseObject({ blockchainIDs: z.array(z.string()) });

/** subnet → the first node (by NodeID) whose inventory lists it and has an API. */
function l1Nodes(s: Spec): Map<string, { nodeId: string; url: string }> {
  const out = new Map<string, { nodeId: string; url: string }>();
  const subnets = typeof s.subnets === 'string' ? {} : s.subnets;
  for (const nodeId of Object.keys(subnets).sort()) {
    const url = s.urls[nodeId];
    if (url === undefined) continue;
    for (const subnet of subnets[nodeId] ?? []) if (!out.has(subnet)) out.set(subnet, { nodeId, url });
  }
  return out;
}

/** One chain's sample of a node series in an exposition (the slot gauge, the connected stake). */
function sampleOf(text: string, name: string, chain: string): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) || !line.includes(`chain="${chain}"`)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    return Number.isFinite(value) && value >= 0 ? value : undefined;
  }
  return undefined;
}

export const l1Liveness: RuleKind<Spec, Observation, State> = {
  kind: 'l1-liveness',
  keyDetails: ['Verdict', 'Active weight', 'Halts'],
  labelNames: ['subnet', 'chain', 'node', 'network', 'check'],
  spec,
  selects: ['urls', 'subnets'],
  readsNodes: true,
  state,
  spread,
  gauges: [
    { name: 'avawatch_l1_active_weight_share', help: "Share (0..1) of an L1's total validator weight that is active.", labelNames: ['rule', 'network', 'subnet_id'] },
    { name: 'avawatch_l1_low_runway_weight_share', help: "Share (0..1) of an L1's total weight whose balance runs out within the rule's horizon.", labelNames: ['rule', 'network', 'subnet_id'] },
    { name: 'avawatch_l1_connected_weight_share', help: "Share (0..1) of an L1's total weight its node is connected to (avalanche_stake_percent_connected).", labelNames: ['rule', 'network', 'subnet_id'] },
    { name: 'avawatch_l1_epoch_held_seconds', help: "Seconds the L1 tip's epoch has stood still while the P-Chain moved (0 while it advances).", labelNames: ['rule', 'network', 'subnet_id'] },
  ],

  async observe(s, { node, data, signal, previous, now, steadyMs }) {
    if (!node) throw new Error('l1-liveness reads the L1 node: no node API given');
    const l1s: L1Reading[] = [];
    for (const [subnetId, at] of l1Nodes(s)) {
      const before = previous.get(subnetId) as State | undefined;
      const known = s.chains?.[subnetId] ?? before?.blockchainId;
      const blockchainId: Read<string> = known
        ? { ok: known }
        : await settle(async () => {
            const ids = await node.rpc(at.url, '/ext/bc/P', 'platform.validates', { subnetID: subnetId }, validatesReply, signal);
            if (ids.blockchainIDs.length === 0) throw new Error(`the node runs no blockchain of subnet ${subnetId}`);
            return [...ids.blockchainIDs].sort()[0] as string;
          }, signal);
      const reading: L1Reading = { subnetId, nodeId: at.nodeId, blockchainId };
      if ('ok' in blockchainId) {
        const chain = blockchainId.ok;
        reading.epoch = await settle(() => currentEpoch(node, at.url, chain, signal), signal);
        reading.proposed = await settle(() => proposedHeight(node, at.url, signal), signal);
        const metrics = await settle(() => node.metricsText(`${at.url.replace(/\/$/, '')}/ext/metrics`, signal), signal);
        const [slot, connected] = 'ok' in metrics ? await ownTurn(() => [sampleOf(metrics.ok, 'avalanche_proposervm_block_building_slot', chain), sampleOf(metrics.ok, 'avalanche_stake_percent_connected', chain)]) : [];
        reading.slot = slot;
        reading.connected = connected !== undefined && connected <= 1 ? connected : undefined;
        const health = await settle(() => node.health(at.url, signal), signal);
        reading.healthy = 'ok' in health ? health.ok.healthy : undefined;
      }
      if (s.weights) {
        const listed = await attempt(signal, () => data.primary.l1Validators(s.network, { subnetId, includeInactive: true }, signal));
        reading.validators = isFailed(listed) ? listed.failed : listed;
      }
      l1s.push(reading);
    }
    return { l1s, steadyMs: steadyMs ?? now.getTime() };
  },

  evaluate(previous, observation, now, s) {
    const nowS = Math.floor(now.getTime() / 1000);
    const states = new Map<string, State>();
    const conditions: Condition[] = [];
    const failed: Record<string, string> = record();
    for (const r of observation.l1s) {
      const before = previous.get(r.subnetId);
      const st: State = { balances: {}, held: { tip: [], weight: [] }, ...before };
      const labels = { subnet: r.subnetId, network: s.network, node: r.nodeId };
      // The tip.
      // Each part read is judged; one not read keeps what held at its last reading.
      const tip = tipPart(r, before, st, observation.steadyMs, s, labels);
      if (tip === 'failed') failed[r.subnetId] = whyTip(r, before);
      const weight = typeof r.validators === 'string' ? 'failed' : r.validators ? weightPart(r.validators, st, nowS, Math.floor(observation.steadyMs / 1000), s, labels) : [];
      if (typeof r.validators === 'string') failed[r.subnetId] = r.validators;
      st.held = { tip: tip === 'failed' ? st.held.tip : tip, weight: weight === 'failed' ? st.held.weight : weight };
      conditions.push(...st.held.tip, ...st.held.weight);
      states.set(r.subnetId, st);
    }
    return { states, alerts: [], conditions, failed };
  },

  samples(s, states) {
    const out: GaugeSample[] = [];
    for (const [subnet, st] of states) {
      const labels = { network: s.network, subnet_id: subnet };
      if (st.activeShare !== undefined) out.push({ metric: 'avawatch_l1_active_weight_share', labels, value: st.activeShare });
      if (st.lowShare !== undefined) out.push({ metric: 'avawatch_l1_low_runway_weight_share', labels, value: st.lowShare });
      if (st.connectedShare !== undefined) out.push({ metric: 'avawatch_l1_connected_weight_share', labels, value: st.connectedShare });
      if (st.epochHeldS !== undefined) out.push({ metric: 'avawatch_l1_epoch_held_seconds', labels, value: st.epochHeldS });
    }
    return out;
  },

  describe(s) {
    const l1s = [...l1Nodes(s).keys()];
    return `${s.network}, ${l1s.length} L1(s), frozen after ${formatDuration(s.frozenAfter)}${s.weights ? `, weight vs ${s.consensusShare}% consensus / ${s.warpShare}% Warp over ${formatDuration(s.horizon)}` : ''}`;
  },

  cost(s) {
    if (!s.weights) return { calls: [] };
    const path = `/v1/networks/${s.network}/l1Validators`;
    return { calls: [...l1Nodes(s).keys()].map((subnetId) => apiCall('GET', path, { subnetId, includeInactiveL1Validators: 'true' })), more: 'one more call per 100 validators of an L1' };
  },
};

type Labels = { subnet: string; network: string; node: string };

function zeroAfterReal(r: L1Reading, before: State | undefined): boolean {
  return r.epoch !== undefined && 'ok' in r.epoch && r.epoch.ok.number === 0 && (before?.epoch?.number ?? 0) > 0;
}

function whyTip(r: L1Reading, before: State | undefined): string {
  if (zeroAfterReal(r, before)) return `the L1 node ${r.nodeId} answered an all-zero epoch after epoch ${before?.epoch?.number} (its preferred block is pre-Granite: bootstrapping?)`;
  const errors = [r.blockchainId, r.epoch, r.proposed].flatMap((x) => (x && 'error' in x ? [x.error.message] : []));
  return `the L1 node ${r.nodeId} did not answer: ${errors[0] ?? 'no reading'}`;
}

/** The frozen-tip verdict; 'failed' when the node gave no epoch or P-Chain height. */
function tipPart(r: L1Reading, before: State | undefined, st: State, steadyMs: number, s: Spec, labels: Labels): Condition[] | 'failed' {
  if (!('ok' in r.blockchainId) || !r.epoch || !('ok' in r.epoch) || !r.proposed || !('ok' in r.proposed)) return 'failed';
  // An all-zero epoch after a real one (the preferred block pre-Granite: a node bootstrapping again) is no reading, never a thaw.
  if (zeroAfterReal(r, before)) return 'failed';
  const chain = r.blockchainId.ok;
  st.blockchainId = chain;
  st.epoch = nextSeen(before?.epoch, r.epoch.ok, r.proposed.ok, steadyMs);
  if (r.slot !== undefined) st.slot = r.slot;
  const v = verdict(st.epoch, r.proposed.ok, steadyMs, s.frozenAfter, r.slot);
  st.epochHeldS = v.tip === 'old' ? Math.floor(v.heldMs / 1000) : 0;
  st.connectedShare = r.connected;
  const out = connectedCondition(r, chain, s, labels);
  if (v.tip === 'live' || v.why === 'quiet') return out;
  const held = humanDuration(v.heldMs);
  const green = r.healthy === true ? '; /ext/health answers healthy' : '';
  const why =
    v.why === 'frozen'
      ? `frozen: its epoch has not advanced for ${held} while the P-Chain moved ${v.pChainMoved} blocks, and this node's next turn to build is ${humanDuration((r.slot ?? 0) * SLOT_MS)} past the tip (no validator in the tip's P-Chain view builds)`
      : `frozen or quiet: its epoch has not advanced for ${held} while the P-Chain moved ${v.pChainMoved} blocks (no slot reading from the node to tell)`;
  return [
    ...out,
    {
      key: `${r.subnetId}/frozen`,
      subject: r.subnetId,
      summary: `L1 ${r.subnetId} (chain ${chain}) is ${why}${green}`,
      resolvedSummary: `L1 ${r.subnetId} (chain ${chain}) is no longer frozen: its epoch advanced, or this node may build again`,
      labels: { ...labels, chain, check: 'frozen' },
      details: {
        Verdict: v.why === 'frozen' ? 'frozen' : 'frozen or quiet',
        Epoch: String(st.epoch.number),
        'Epoch started': isoSeconds(st.epoch.startTime),
        "Tip's P-Chain height": String(st.epoch.pChainHeight),
        'P-Chain proposed height': String(r.proposed.ok),
        'Block-building slot': r.slot === undefined ? 'not read' : String(r.slot),
        '/ext/health': r.healthy === undefined ? 'not read' : r.healthy ? 'healthy' : 'unhealthy',
      },
    },
  ];
}

/** The node connected to less of the L1's weight than consensus needs: its polls cannot finish. */
function connectedCondition(r: L1Reading, chain: string, s: Spec, labels: Labels): Condition[] {
  if (r.connected === undefined || r.connected >= s.consensusShare / 100) return [];
  return [
    {
      key: `${r.subnetId}/connected`,
      subject: r.subnetId,
      summary: `L1 ${r.subnetId} (chain ${chain}): ${r.nodeId} is connected to ${pct(r.connected)} of its weight, under the ${s.consensusShare}% consensus needs`,
      resolvedSummary: `L1 ${r.subnetId} (chain ${chain}): ${r.nodeId} is connected to at least ${s.consensusShare}% of its weight again`,
      labels: { ...labels, chain, check: 'connected' },
      details: { 'Connected weight': pct(r.connected), Needs: `${s.consensusShare}%` },
    },
  ];
}

/** The weight shares and their forecast; keeps the balance readings the burn is measured from. */
function weightPart(validators: readonly L1Validator[], st: State, nowS: number, steadyS: number, s: Spec, labels: Labels): Condition[] {
  // By validation ID, the service's text: own keys only ("constructor", "__proto__" are IDs here, not Object's).
  const balances = new Map<string, State['balances'][string]>();
  const members: Member[] = [];
  for (const v of validators) {
    const active = BigInt(v.remainingBalance) > 0n && (v.weight ?? 0) > 0;
    const was = Object.hasOwn(st.balances, v.validationId) ? st.balances[v.validationId] : undefined;
    const b = active ? nextState(was, v, nowS, steadyS) : { ...nextState(undefined, v, nowS, steadyS), inactive: true };
    balances.set(v.validationId, b);
    members.push({ validationId: v.validationId, nodeId: v.nodeId, weight: v.weight ?? 0, active, balance: BigInt(v.remainingBalance), burnPerSecond: b.burnPerSecond });
  }
  st.balances = Object.fromEntries(balances);
  const w = weigh(members, { consensus: s.consensusShare / 100, warp: s.warpShare / 100, horizonS: Math.floor(s.horizon / 1000) });
  st.activeShare = w.activeShare;
  st.lowShare = w.lowShare;
  if (w.totalWeight <= 0) return [];
  return weightConditions(w, validators.length, nowS, s, labels);
}

const pct = (share: number) => `${(Math.floor(share * 1000) / 10).toFixed(1)}%`;

function weightConditions(w: Weighing, count: number, nowS: number, s: Spec, labels: Labels): Condition[] {
  const l1 = `L1 ${labels.subnet}`;
  const details = { 'Active weight': pct(w.activeShare), 'Running dry within the horizon': pct(w.lowShare), Validators: String(count), 'Total weight': String(w.totalWeight) };
  const out: Condition[] = [];
  const under = (check: 'consensus' | 'warp', need: number, what: string) =>
    out.push({
      key: `${labels.subnet}/${check}`,
      subject: labels.subnet,
      summary: `${l1} has ${pct(w.activeShare)} of its weight active, under the ${need}% ${what}`,
      resolvedSummary: `${l1} has at least ${need}% of its weight active again`,
      labels: { ...labels, check },
      details: { ...details, Needs: `${need}%` },
    });
  if (w.activeShare < s.consensusShare / 100) under('consensus', s.consensusShare, 'consensus needs: it cannot accept blocks');
  if (w.activeShare < s.warpShare / 100) under('warp', s.warpShare, 'Warp needs: its messages cannot be verified');
  if (w.consensusIn !== undefined && w.consensusIn > 0) {
    const topUps = w.topUps.map((t) => `${t.nodeId} ${formatAvax(t.need)} AVAX`).join(', ');
    const warp = w.warpIn === undefined ? '' : `; Warp fails around ${isoSeconds(nowS + w.warpIn)}`;
    out.push({
      key: `${labels.subnet}/forecast`,
      subject: labels.subnet,
      // A time from the balances' reading, true whenever it is delivered; the span for the reader.
      summary: `${l1} halts around ${isoSeconds(nowS + w.consensusIn)} (in ${humanDuration(w.consensusIn * 1000)}) unless ${w.topUps.length} validator(s) top up: ${topUps}${warp}`,
      resolvedSummary: `${l1} no longer runs under ${s.consensusShare}% active weight within ${formatDuration(s.horizon)} (topped up, or weight added)`,
      labels: { ...labels, check: 'forecast' },
      details: { ...details, Halts: isoSeconds(nowS + w.consensusIn), ...(w.warpIn === undefined ? {} : { 'Warp fails': isoSeconds(nowS + w.warpIn) }), 'Top up': topUps },
    });
  }
  return out;
}
