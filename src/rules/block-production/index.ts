import type { Network } from '../../api/data/reader.js';
import { apiCall } from '../../api/catalog.js';
import { formatDuration, formatElapsed } from '../../base/duration.js';
import { record } from '../../base/record.js';
import { isoSeconds } from '../format.js';
import { isFailed, keepFailed, lookupEach, type Outcome } from '../lookup.js';
import type { Condition, Evaluation, GaugeSample, Resolution, RuleKind } from '../types.js';
import { byNodeIds } from '../spread.js';
import { chainsOf, silentForOf, spec, state, type Chain, type Spec, type State } from './schema.js';
import { oddText, usable, usableTime, type Block } from './times.js';
import { activeListCalls, observeValidating, type Validating } from './validating.js';

/** What one read of a node on a chain found. */
export interface Read {
  /** Blocks listed since the hour before `now` (newest first): timestamps and numbers. */
  hour: Array<{ at: number; number: string }>;
  /** False when more of the hour was listed past maxPages: the count is a lower bound. */
  complete: boolean;
  /**
   * The newest block the service lists at all, asked only when the hour showed none and the
   * state cannot say (first look, or a gap longer than the hour): null when it lists none.
   */
  newest?: { at: number; number: string } | null;
  /** Blocks listed above `newest` with no usable time (stamped ahead of the clock): passed over, said in the details. */
  skipped?: Array<{ at: number; number: string }>;
}

export interface Observation {
  /** Keyed `node:chain`. */
  reads: Record<string, Outcome<Read>>;
  /** By node; a node left out is taken as validating (as is one whose read failed). */
  validating?: Validating;
}

const HOUR_S = 3600;
const PAGE_SIZE = 100;
const LOOKUP_CONCURRENCY = 2;
const NAME: Record<Chain, string> = { 'p-chain': 'P-chain', 'c-chain': 'C-chain', 'x-chain': 'X-chain' };
const keyOf = (node: string, chain: Chain) => `${node}:${chain}`;

/**
 * Fires when a watched node has proposed no block on a primary-network chain for longer
 * than silentFor. A node proposes in proportion to its stake (Snowman++ proposer windows),
 * so silentFor is the operator's: docs/rules.md says how to choose it.
 */
export const blockProduction: RuleKind<Spec, Observation, State> = {
  kind: 'block-production',
  keyDetails: ['Last proposed block', 'Silent for'],
  labelNames: ['node', 'network', 'chain'],
  spec,
  selects: ['nodeIds'],
  state,
  // Keys are `${node}:${chain}`.
  spread: { ...byNodeIds(), stateOwner: (_key, st) => st.nodeId, failedOwner: (key) => key.split(':')[0] },
  gauges: [
    {
      name: 'avawatch_node_last_proposed_block_timestamp_seconds',
      help: 'When a watched node last proposed a block on the chain (p-chain, c-chain, x-chain; unix seconds); absent while the service lists none.',
      labelNames: ['rule', 'network', 'node_id', 'chain'],
    },
    {
      name: 'avawatch_node_blocks_proposed_last_hour',
      help: 'Blocks a watched node proposed on the chain in the hour before the last poll (a lower bound past maxPages pages of 100).',
      labelNames: ['rule', 'network', 'node_id', 'chain'],
    },
  ],

  async observe(s, { data, signal, now, previous, memo }) {
    const nowS = Math.floor(now.getTime() / 1000);
    const pairs = s.nodeIds.flatMap((node) => chainsOf(s).map((chain) => ({ node, chain, key: keyOf(node, chain) })));
    const byKey = new Map(pairs.map((p) => [p.key, p]));
    const lastStart = (node: string) => chainsOf(s).map((c) => state.safeParse(previous.get(keyOf(node, c)))).find((r) => r.success)?.data.periodStart;
    const validating = observeValidating(s, { data, signal, now, ...(memo ? { memo } : {}) }, lastStart);
    // Awaited below; until then a rejection (the block reads failed first, a shutdown) must not go unhandled.
    validating.catch(() => undefined);
    const reads = await lookupEach(
      pairs.map((p) => p.key),
      LOOKUP_CONCURRENCY,
      signal,
      async (key): Promise<Read> => {
        const { node, chain } = byKey.get(key) as { node: string; chain: Chain };
        const since = nowS - HOUR_S;
        const hour = await data.primary.proposedBlocks(s.network as Network, chain, node, { startTimestamp: since, pageSize: PAGE_SIZE, pages: s.maxPages }, signal);
        const read: Read = { hour: hour.blocks.map((b) => ({ at: b.blockTimestamp, number: b.blockNumber })), complete: hour.complete };
        const before = state.safeParse(previous.get(key));
        // An empty hour keeps the last block known only if the last read was within the hour,
        // and only a block older than the hour (one within it the hour would list) with a usable time.
        const covered = before.success && before.data.checkedAt >= since;
        const known = before.success ? before.data.lastBlockAt : undefined;
        const trusted = known === undefined || (usableTime(known, nowS) ?? Infinity) < since;
        if (usable(read.hour, nowS).blocks.length === 0 && !(covered && trusted)) {
          const list = (q: { pageSize: number; pages: number }) => data.primary.proposedBlocks(s.network as Network, chain, node, q, signal);
          const { newest, skipped } = await newestUsable(list, nowS, s.maxPages);
          read.newest = newest;
          if (skipped.length > 0) read.skipped = skipped;
        }
        return read;
      },
    );
    return { reads, validating: await validating };
  },

  evaluate(previous, observation, now, s) {
    const nowS = Math.floor(now.getTime() / 1000);
    const result: Evaluation<State> = { states: new Map(), alerts: [], conditions: [], failed: record() };
    for (const node of s.nodeIds) {
      const validating = observation.validating?.get(node);
      for (const chain of chainsOf(s)) {
        const key = keyOf(node, chain);
        const before = previous.get(key);
        const read = observation.reads[key];
        // A failed read of the list says nothing: what the state knew stands.
        const periodStart = validating !== undefined && !isFailed(validating) ? validating : before?.periodStart;
        if (read === undefined || isFailed(read)) {
          keepFailed(result, key, before, read?.failed ?? 'not read');
          const kept = before && withStart(before, periodStart);
          if (kept) result.states.set(key, kept);
          // As of its last read: time passing alone neither fires nor resolves it.
          const held = kept && silence(kept, kept.checkedAt, s);
          if (held) result.conditions?.push(held);
          continue;
        }
        const st = withStart(next(node, chain, before, read, nowS), periodStart);
        result.states.set(key, st);
        const c = silence(st, nowS, s);
        if (c) result.conditions?.push(c);
      }
    }
    result.resolvedAs = (key) => {
      const st = result.states.get(key);
      return st && proposing(st, s);
    };
    return result;
  },

  samples(s, states) {
    const out: GaugeSample[] = [];
    for (const st of states.values()) {
      const labels = { network: s.network, node_id: st.nodeId, chain: st.chain };
      if (st.lastBlockAt !== undefined) out.push({ metric: 'avawatch_node_last_proposed_block_timestamp_seconds', labels, value: st.lastBlockAt });
      out.push({ metric: 'avawatch_node_blocks_proposed_last_hour', labels, value: st.hourCount });
    }
    return out;
  },

  describe(s) {
    const chains = chainsOf(s);
    const silent = chains.map((c) => `${NAME[c]} ${formatDuration(silentForOf(s, c))}`).join(', ');
    return `${s.network}, ${s.nodeIds.length} node${s.nodeIds.length === 1 ? '' : 's'}, silent for longer than ${silent}`;
  },

  cost: (s) => ({
    calls: [
      ...s.nodeIds.flatMap((node) =>
        chainsOf(s).map((chain) => apiCall('GET', `/v1/networks/${s.network}/blockchains/${chain}/nodes/${node}/blocks`, { pageSize: String(PAGE_SIZE), startTimestamp: 'now-1h' })),
      ),
      // Whether each node validates: the active list the validator kinds read (made once for all).
      ...activeListCalls(s),
    ],
    more: `up to ${s.maxPages} page${s.maxPages === 1 ? '' : 's'} per node and chain in a busy hour; one more call for a node and chain with no block in the last hour at the first poll or after a gap of over an hour (and a page more when the newest block listed is stamped ahead of the clock); one lookup (20 CU) per node that leaves the active list, and per node not listed at the first poll`,
  }),
};

/**
 * The state after a read: the newest block the service lists now. A block remembered stands
 * only where the hour cannot show it (older than the hour); one within it that the hour no
 * longer lists is forgotten, and an odd time (times.ts) is never the newest.
 */
function next(node: string, chain: Chain, before: State | undefined, read: Read, nowS: number): State {
  const since = nowS - HOUR_S;
  const hour = usable(read.hour, nowS);
  const newest = usable([...(read.skipped ?? []), ...(read.newest ? [read.newest] : [])], nowS);
  const inHour = hour.blocks.filter((b) => b.at >= since);
  const known = usableTime(before?.lastBlockAt, nowS);
  let last: Block | undefined = known !== undefined && known < since ? { at: known, number: before?.lastBlockNumber ?? '' } : undefined;
  for (const b of [...hour.blocks, ...newest.blocks]) if (!last || b.at > last.at) last = b;
  const st: State = { nodeId: node, chain, firstLookedAt: before?.firstLookedAt ?? nowS, checkedAt: nowS, hourCount: inHour.length, hourComplete: read.complete };
  if (last) {
    st.lastBlockAt = last.at;
    if (last.number !== '') st.lastBlockNumber = last.number;
  }
  // Said until the newest block changes: by then the node has spoken for itself. The hour's
  // first: it is read every time, the newest blocks only while the hour cannot say.
  const odd = hour.odd ?? newest.odd ?? (before?.oddBlock && st.lastBlockAt === before.lastBlockAt && st.lastBlockNumber === before.lastBlockNumber ? before.oddBlock : undefined);
  if (odd) st.oddBlock = odd;
  return st;
}

type BlockList = (q: { pageSize: number; pages: number }) => Promise<{ blocks: Array<{ blockTimestamp: number; blockNumber: string }> }>;

/**
 * The newest block the service lists with a usable time (null when it lists none), and the
 * ones listed above it without one. Newest first, a block stamped a day ahead comes first: at
 * the first look it would hide the real newest block, and a node silent for hours would look
 * silent only since avawatch first looked. One call; a page more only in that odd case.
 */
async function newestUsable(list: BlockList, nowS: number, maxPages: number): Promise<{ newest: Block | null; skipped: Block[] }> {
  const read = async (q: { pageSize: number; pages: number }) => (await list(q)).blocks.map((b) => ({ at: b.blockTimestamp, number: b.blockNumber }));
  const first = await read({ pageSize: 1, pages: 1 });
  if (first.length === 0) return { newest: null, skipped: [] };
  if (usable(first, nowS).blocks.length > 0) return { newest: first[0] as Block, skipped: [] };
  const blocks = await read({ pageSize: PAGE_SIZE, pages: maxPages });
  const i = blocks.findIndex((b) => usable([b], nowS).blocks.length > 0);
  return i < 0 ? { newest: null, skipped: blocks.length > 0 ? blocks : first } : { newest: blocks[i] as Block, skipped: blocks.slice(0, i) };
}

/** The state with what the list says of the node's validation (unchanged when it says nothing). */
function withStart(st: State, periodStart: number | null | undefined): State {
  return periodStart === undefined || st.periodStart === periodStart ? st : { ...st, periodStart };
}

/** What a silence alert says when it stops holding: the validation ended, or the new block, as read now. */
function proposing(st: State, s: Spec): Resolution | undefined {
  const name = NAME[st.chain as Chain] ?? st.chain;
  const last = st.lastBlockAt === undefined ? 'none listed' : `${isoSeconds(st.lastBlockAt)}${st.lastBlockNumber ? ` (block ${st.lastBlockNumber})` : ''}`;
  if (st.periodStart === null) {
    return {
      summary: `${st.nodeId}: validation ended; a node that does not validate proposes no blocks`,
      details: { Node: st.nodeId, Network: s.network, Chain: name, Validation: `no active period listed (at ${isoSeconds(st.checkedAt)})`, 'Last proposed block': last },
    };
  }
  if (st.lastBlockAt === undefined) return undefined;
  const block = last;
  return {
    summary: `${st.nodeId} proposes ${name} blocks again: last at ${block}`,
    details: {
      Node: st.nodeId,
      Network: s.network,
      Chain: name,
      'Last proposed block': block,
      'Blocks in the last hour': `${st.hourCount}${st.hourComplete ? '' : ' or more'} (at ${isoSeconds(st.checkedAt)})`,
    },
  };
}

/**
 * Firing while the validating node has proposed nothing on the chain for longer than
 * silentFor, as of `atS`: since its last block, or since its validation started if later.
 */
function silence(st: State, atS: number, s: Spec): Condition | undefined {
  if (st.periodStart === null) return undefined;
  const chain = st.chain as Chain;
  const limitMs = silentForOf(s, chain);
  const started = st.periodStart ?? 0;
  const sinceS = Math.max(st.lastBlockAt ?? st.firstLookedAt, started);
  const silentMs = (atS - sinceS) * 1000;
  if (silentMs <= limitMs) return undefined;
  const node = st.nodeId;
  const name = NAME[chain] ?? st.chain;
  const limit = formatDuration(limitMs);
  const lastText = st.lastBlockAt === undefined ? 'none listed' : `last at ${isoSeconds(st.lastBlockAt)}`;
  const summary =
    started > (st.lastBlockAt ?? st.firstLookedAt)
      ? `${node} has proposed no ${name} block since its validation started, ${isoSeconds(started)} (${formatElapsed(silentMs)}; ${lastText}), longer than silentFor ${limit}`
      : st.lastBlockAt === undefined
      ? `${node} has proposed no ${name} block since avawatch first looked, ${isoSeconds(st.firstLookedAt)} (${formatElapsed(silentMs)}; the service lists none of its blocks), longer than silentFor ${limit}`
      : `${node} has proposed no ${name} block for ${formatElapsed(silentMs)} (last at ${isoSeconds(st.lastBlockAt)}), longer than silentFor ${limit}`;
  return {
    key: `${node}:${st.chain}`,
    subject: node,
    summary,
    resolvedSummary: `${node} proposes ${name} blocks again`,
    labels: { node, network: s.network, chain: st.chain },
    details: {
      Node: node,
      Network: s.network,
      Chain: name,
      'Last proposed block':
        st.lastBlockAt === undefined ? `none listed (watched since ${isoSeconds(st.firstLookedAt)})` : `${isoSeconds(st.lastBlockAt)}${st.lastBlockNumber ? ` (block ${st.lastBlockNumber})` : ''}`,
      'Blocks in the last hour': `${st.hourCount}${st.hourComplete ? '' : ' or more'} (at ${isoSeconds(st.checkedAt)})`,
      ...(started > 0 ? { 'Validating since': isoSeconds(started) } : {}),
      'Silent for': `longer than ${limit} (proposals follow stake weight: see silentFor in docs/rules.md)`,
      ...(st.oddBlock ? { 'Odd block time': oddText(st.oddBlock) } : {}),
    },
  };
}
