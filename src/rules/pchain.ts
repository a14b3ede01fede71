import { z } from 'zod';
import { AVAX_ASSET_ID } from '../api/catalog.js';
import { NodeApiError, type NodeApi } from '../api/node-api.js';
import { goNumber } from '../api/node-schemas.js';
import { PRIMARY_NETWORK, type Network } from './fields.js';
import type { Failed } from './lookup.js';

// The P-Chain's own word on the primary-network validators a rule watches:
// platform.getCurrentValidators, read as AvalancheGo v1.15 writes it (vms/platformvm/service.go,
// vms/platformvm/api/validator.go; docs/node-api-source.md). It is what tells an auto-renewed
// validator (ACP-236) from another: `validatorAuthority`, `nextPeriod` and
// `autoCompoundRewardShares` sit inline in the validator object, present only for one that
// renews, and its startTime/endTime are its current cycle's. Read from a P-Chain API the
// config names (a public one will do) or from the operator's own nodes' APIs; no compute units.

/** An owner as the P-Chain API writes it (api.Owner): threshold and "P-avax1…" addresses. */
export interface Owner {
  threshold: number;
  addresses: string[];
}

/** What ACP-236 adds to an auto-renewed validator (AutoRenewedConfig). */
export interface AutoRenew {
  /** Seconds of the next cycle; 0: the validator exits at the end of this one. */
  nextPeriod: number;
  /** Millionths of each cycle's reward restaked (reward.PercentDenominator). */
  compoundShares: number;
  authority: Owner | undefined;
}

/** A primary-network validator as getCurrentValidators lists it: only what avawatch reads. */
export interface Staker {
  txId: string;
  nodeId: string;
  /** Unix seconds: the validation's, or an auto-renewed validator's current cycle's. */
  start: number;
  end: number;
  /** nAVAX staked (principal plus what was restaked). */
  weight: string;
  /** nAVAX: this validation's (this cycle's) reward if it ends with enough uptime. */
  potentialReward?: string | undefined;
  /** nAVAX: delegation fees earned so far (this cycle's, for one that renews). */
  delegateeReward?: string | undefined;
  /** The answering node's view of this validator's uptime since start, percent. */
  uptime?: number | undefined;
  autoRenew?: AutoRenew | undefined;
}

/** What one poll read: each asked node's staker, absent when the P-Chain lists it not (not a current validator), or why its item could not be read. */
export interface StakersRead {
  /** host:port of the API that answered. */
  source: string;
  /** The watched node whose own API answered, if it was one (its uptime of itself says nothing). */
  node?: string | undefined;
  stakers: Map<string, Staker | Failed>;
}

/** json.Uint64 amounts: digits (a quoted string, or a bare number within 2^53). */
const navaxText = z.union([z.string().regex(/^\d{1,30}$/), z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)]).transform((v) => (typeof v === 'number' ? String(v) : v.replace(/^0+(?=\d)/, '')));
/** json.Uint64 seconds: a whole non-negative number. */
const seconds = goNumber.refine((n) => Number.isSafeInteger(n) && n >= 0, { message: 'expected whole seconds' });
const owner = z.looseObject({ threshold: goNumber.optional(), addresses: z.array(z.string()).optional() }).transform((o): Owner => ({ threshold: o.threshold ?? 0, addresses: o.addresses ?? [] }));

/** One validator item; what it does not read never fails it, an odd optional figure is read as absent. */
export const stakerItem = z
  .looseObject({
    txID: z.string().min(1).max(100),
    nodeID: z.string().regex(/^NodeID-[1-9A-HJ-NP-Za-km-z]{20,60}$/),
    startTime: seconds,
    endTime: seconds,
    weight: navaxText,
    potentialReward: navaxText.optional().catch(undefined),
    accruedDelegateeReward: navaxText.optional().catch(undefined),
    uptime: goNumber.refine((n) => Number.isFinite(n) && n >= 0 && n <= 100).optional().catch(undefined),
    validatorAuthority: owner.nullish().catch(undefined),
    nextPeriod: seconds.optional(),
    autoCompoundRewardShares: goNumber.refine((n) => Number.isSafeInteger(n) && n >= 0 && n <= 1_000_000, { message: 'expected millionths within 0..1,000,000' }).optional(),
  })
  .refine((v) => v.endTime > v.startTime, { message: 'its end is not after its start', path: ['endTime'] })
  .refine((v) => (v.nextPeriod === undefined) === (v.autoCompoundRewardShares === undefined), { message: 'nextPeriod and autoCompoundRewardShares come together (AutoRenewedConfig)', path: ['nextPeriod'] })
  .transform((v): Staker => ({
    txId: v.txID,
    nodeId: v.nodeID,
    start: v.startTime,
    end: v.endTime,
    weight: v.weight,
    potentialReward: v.potentialReward,
    delegateeReward: v.accruedDelegateeReward,
    uptime: v.uptime,
    autoRenew:
      v.nextPeriod === undefined || v.autoCompoundRewardShares === undefined
        ? undefined
        : { nextPeriod: v.nextPeriod, compoundShares: v.autoCompoundRewardShares, authority: v.validatorAuthority ?? undefined },
  }));

const currentValidatorsReply = z.looseObject({ validators: z.array(z.unknown()).nullable() }).transform((r) => r.validators ?? []);
const stakingAssetReply = z.looseObject({ assetID: z.string() }).transform((r) => r.assetID);

const P_CHAIN = '/ext/bc/P';
/** ids.EmptyNodeID: asked beside a lone node, so the answer leaves its delegators out (service.go lists them only when one NodeID is asked). */
const EMPTY_NODE_ID = 'NodeID-111111111111111111116DBWJs';
/** Nodes per call: 100 validators' items stay far under the node client's 1 MiB cap. */
const BATCH = 100;
/** APIs tried per poll before the read is given up (each costs at most the node client's deadline). */
const MAX_SOURCES = 2;

export interface Sources {
  /** A P-Chain API (its base URL) named in the config: asked first. */
  pChainApi?: string | undefined;
  /** The watched nodes' own APIs, by NodeID (the inventory's `api`). */
  nodeApis?: Readonly<Record<string, string>> | undefined;
}

/** The APIs to ask, in order: the configured P-Chain API, then the nodes' own (each once). */
function sourcesOf(s: Sources): Array<{ base: string; node?: string }> {
  const out: Array<{ base: string; node?: string }> = [];
  if (s.pChainApi !== undefined) out.push({ base: s.pChainApi });
  const seen = new Set(out.map((o) => o.base));
  for (const [node, base] of Object.entries(s.nodeApis ?? {})) {
    if (seen.has(base)) continue;
    seen.add(base);
    out.push({ base, node });
  }
  return out;
}

/** No API answered. `nodesDown`: every one asked was a watched node's own, and did not answer at all (node-health says so; not avawatch's blindness). */
export type StakersFailed = Failed & { nodesDown?: boolean };

/**
 * The current primary-network validators among `nodeIds`, from the first API that answers on
 * the right network (checked by its staking asset: an API of another network answers nothing
 * about ours). undefined: no API is known. Failed: none answered; the reason names each.
 */
export async function readStakers(network: Network, nodeIds: readonly string[], s: Sources, api: NodeApi | undefined, signal: AbortSignal): Promise<StakersRead | StakersFailed | undefined> {
  const sources = sourcesOf(s);
  if (sources.length === 0 || nodeIds.length === 0) return undefined;
  if (!api) return { failed: 'the node API client is not available' };
  const errors: string[] = [];
  let nodesDown = true;
  for (const { base, node } of sources.slice(0, MAX_SOURCES)) {
    try {
      return { source: new URL(base).host, ...(node === undefined ? {} : { node }), stakers: await readFrom(api, base, network, nodeIds, signal) };
    } catch (err) {
      signal.throwIfAborted();
      errors.push(err instanceof Error ? err.message : String(err));
      if (node === undefined || !(err instanceof NodeApiError && err.kind === 'unreachable')) nodesDown = false;
    }
  }
  return { failed: `P-Chain API: ${errors.join('; ')}`, ...(nodesDown ? { nodesDown } : {}) };
}

async function readFrom(api: NodeApi, base: string, network: Network, nodeIds: readonly string[], signal: AbortSignal): Promise<Map<string, Staker | Failed>> {
  const asset = await api.rpc(base, P_CHAIN, 'platform.getStakingAssetID', { subnetID: PRIMARY_NETWORK }, stakingAssetReply, signal);
  if (asset !== AVAX_ASSET_ID[network]) {
    const theirs = Object.entries(AVAX_ASSET_ID).find(([, id]) => id === asset)?.[0] ?? 'another network';
    throw new NodeApiError(`node ${new URL(base).host} platform.getStakingAssetID: it answers for ${theirs}, not ${network} (AVAX asset ${asset.slice(0, 60)})`, 'invalid');
  }
  const out = new Map<string, Staker | Failed>();
  const wanted = new Set(nodeIds);
  for (let i = 0; i < nodeIds.length; i += BATCH) {
    const batch = nodeIds.slice(i, i + BATCH);
    const ask = batch.length === 1 ? [...batch, EMPTY_NODE_ID] : batch;
    const items = await api.rpc(base, P_CHAIN, 'platform.getCurrentValidators', { nodeIDs: ask }, currentValidatorsReply, signal);
    for (const raw of items) {
      const parsed = stakerItem.safeParse(raw);
      const node = typeof raw === 'object' && raw !== null ? (raw as { nodeID?: unknown }).nodeID : undefined;
      if (parsed.success) {
        if (wanted.has(parsed.data.nodeId)) out.set(parsed.data.nodeId, parsed.data);
      } else if (typeof node === 'string' && wanted.has(node)) {
        const issue = parsed.error.issues[0];
        out.set(node, { failed: `P-Chain API ${new URL(base).host}: its item for ${node} does not parse (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'})` });
      }
    }
  }
  return out;
}

/**
 * What one answer says of a node, against the auto-renewed validation last known of it (every
 * kind that reads the P-Chain judges news the same way): no reading (the read failed, or its
 * item did not parse: `why`), an answer older than what was known (a lagging backend), the
 * staker as listed (`byItself`: the API that answered is the node's own), or listed no more:
 * before the boundary it was known to run to (not how a validator leaves), past it (it left:
 * a kind confirms with the service before it says so), or with nothing known (no validator).
 */
export type StakerNews =
  | { kind: 'unread'; why?: string }
  | { kind: 'stale' }
  | { kind: 'listed'; staker: Staker; byItself: boolean }
  | { kind: 'absent' }
  | { kind: 'gone-early' | 'gone'; source: string };

export function stakerNews(read: StakersRead | Failed, node: string, was: { txId: string; start: number; end: number } | undefined, nowS: number): StakerNews {
  if ('failed' in read) return { kind: 'unread' };
  const item = read.stakers.get(node);
  if (item !== undefined && 'failed' in item) return { kind: 'unread', why: item.failed };
  if (item === undefined) return !was ? { kind: 'absent' } : { kind: nowS < was.end ? 'gone-early' : 'gone', source: read.source };
  if (item.autoRenew && was && was.txId === item.txId && item.start < was.start) return { kind: 'stale' };
  // The answering node's uptime of itself says nothing: `byItself` tells it.
  return { kind: 'listed', staker: item, byItself: read.node === node };
}
