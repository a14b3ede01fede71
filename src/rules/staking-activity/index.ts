import { apiCall, AVAX_ASSET_ID } from '../../api/catalog.js';
import { filterBatches } from '../../api/data/filters.js';
import { avaxText, navax, navaxToAvax } from '../../base/amount.js';
import { record } from '../../base/record.js';
import { isFailed, lookupEach } from '../lookup.js';
import type { AlertDraft, GaugeSample, RuleKind } from '../types.js';
import { isoSeconds } from '../format.js';
import { stakingTransactions, type StakingTransaction } from './read.js';
import { BASELINE_KEY, spec, state, type Marker, type Spec, type State, type TransactionState } from './schema.js';

/** A staking transaction as the rule reads it: AVAX staked, and the watched addresses it concerns. */
export interface Seen extends TransactionState {
  txHash: string;
  rewardTxHash?: string | undefined;
}

export interface Observation {
  /** Read this time: every one for a baseline, else the newest, down to what was known. */
  transactions: Seen[];
  /** Addresses whose batch could not be read, with why: what they had is kept. */
  failed: Record<string, string>;
  /** Addresses whose batch was read (whole, or down to what was known). */
  read: string[];
}

const LOOKUP_CONCURRENCY = 2;

export const stakingActivity: RuleKind<Spec, Observation, State> = {
  kind: 'staking-activity',
  keyDetails: ['Amount staked'],
  labelNames: ['network', 'address', 'tx_type', 'node'],
  spec: spec as unknown as RuleKind<Spec, Observation, State>['spec'],
  state,
  gauges: [
    { name: 'avawatch_staking_active_transactions', help: 'Staking transactions of a watched P-chain address whose staking period is running.', labelNames: ['rule', 'network', 'address'] },
    { name: 'avawatch_staking_active_avax', help: 'AVAX staked in those transactions.', labelNames: ['rule', 'network', 'address'] },
  ],

  async observe(s, { data, signal, previous }) {
    const prev = previous as ReadonlyMap<string, State>;
    const marker = markerOf(prev);
    const known = new Set(marker.entities);
    const tracked = new Set([...prev.keys()].filter((k) => k !== BASELINE_KEY));
    // Newest first. A batch with an address not read before is read whole (its baseline);
    // otherwise only down to a page that holds a known transaction, or one older than the
    // newest seen for every address of the batch (nothing new can follow it).
    const batches = filterBatches(s.addresses, Number.POSITIVE_INFINITY);
    const reads = await lookupEach(Object.keys(batches), LOOKUP_CONCURRENCY, signal, (i) => {
      const addresses = batches[Number(i)] as string[];
      const whole = addresses.some((a) => !known.has(a));
      const floor = Math.min(...addresses.map((a) => marker.newest[a] ?? Number.NEGATIVE_INFINITY));
      const enough = (page: readonly StakingTransaction[]) => page.some((t) => tracked.has(t.txHash) || t.blockTimestamp < floor);
      return stakingTransactions(data.primary, s.network, { addresses, ...(whole ? {} : { enough }) }, signal);
    });
    const failed = record<string>();
    const read: string[] = [];
    const seen = new Map<string, Seen>();
    for (const [i, result] of Object.entries(reads)) {
      const addresses = batches[Number(i)] as string[];
      if (isFailed(result)) {
        for (const a of addresses) failed[a] = result.failed;
        continue;
      }
      read.push(...addresses);
      for (const t of result) {
        const st = toSeen(t, addresses, s);
        const before = seen.get(t.txHash);
        seen.set(t.txHash, before ? { ...st, addresses: [...new Set([...before.addresses, ...st.addresses])].sort() } : st);
      }
    }
    return { transactions: [...seen.values()], failed, read };
  },

  evaluate(previous, observation, now, s) {
    const nowS = Math.floor(now.getTime() / 1000);
    const marker = markerOf(previous);
    const known = new Set(marker.entities);
    const watching = new Set(s.addresses);
    const newest = record<number>(Object.entries(marker.newest).filter(([a]) => watching.has(a)));
    const states = new Map<string, State>();
    const alerts: AlertDraft[] = [];
    for (const t of observation.transactions) {
      const addresses = t.addresses.filter((a) => watching.has(a));
      if (addresses.length === 0) continue;
      const { txHash, rewardTxHash, ...rest } = t;
      const st: TransactionState = { ...rest, addresses };
      // New: unknown, of an address read before, and no older than the newest seen for it
      // (a list that also showed ended transactions would not announce old ones).
      const fresh = !previous.get(txHash) && addresses.some((a) => known.has(a) && t.blockTimestamp >= (marker.newest[a] ?? Number.NEGATIVE_INFINITY));
      if (fresh) alerts.push(newTransaction(txHash, st, rewardTxHash, s));
      states.set(txHash, st);
      for (const a of addresses) newest[a] = Math.max(newest[a] ?? Number.NEGATIVE_INFINITY, t.blockTimestamp);
    }
    // One not read this time (beyond the pages read, or its batch failed) is kept while its
    // period runs, and while it is the newest of its address (so it is never new again).
    for (const [tx, st] of previous) {
      if (tx === BASELINE_KEY || 'baseline' in st || states.has(tx)) continue;
      const addresses = st.addresses.filter((a) => watching.has(a));
      if (addresses.length === 0) continue;
      const running = st.endTimestamp === undefined || st.endTimestamp > nowS;
      if (running || addresses.some((a) => st.blockTimestamp >= (newest[a] ?? Number.NEGATIVE_INFINITY))) states.set(tx, { ...st, addresses });
    }
    const entities = [...new Set([...marker.entities, ...observation.read])].filter((a) => watching.has(a)).sort();
    states.set(BASELINE_KEY, { baseline: true, entities, newest });
    return { states, alerts, failed: observation.failed };
  },

  samples(s, states, now) {
    const nowS = Math.floor(now.getTime() / 1000);
    const marker = markerOf(states);
    const per = new Map(marker.entities.map((a) => [a, { count: 0, amount: 0n }]));
    for (const st of states.values()) {
      if ('baseline' in st) continue;
      const running = (st.startTimestamp ?? 0) <= nowS && (st.endTimestamp === undefined || st.endTimestamp > nowS);
      if (!running) continue;
      for (const a of st.addresses) {
        const n = per.get(a);
        if (n) per.set(a, { count: n.count + 1, amount: n.amount + (navax(st.amount ?? '') ?? 0n) });
      }
    }
    const out: GaugeSample[] = [];
    for (const [address, n] of per) {
      if (!s.addresses.includes(address)) continue;
      const labels = { network: s.network, address };
      out.push({ metric: 'avawatch_staking_active_transactions', labels, value: n.count });
      out.push({ metric: 'avawatch_staking_active_avax', labels, value: navaxToAvax(n.amount) });
    }
    return out;
  },

  describe: (s) => `${s.network}, ${s.addresses.length} address(es), ${calls(s).length} call(s) of 100 CU a poll`,
  cost: (s) => ({
    calls: calls(s),
    more: 'listStaking costs 100 CU a call: a poll every 5m or longer is advised; the first read of an address lists every page, later ones a further page only while a page holds only new transactions',
  }),
};

/** As many addresses per call as fit in the URL: each call costs 100 CU whatever it holds. */
function calls(s: Spec) {
  const path = `/v1/networks/${s.network}/blockchains/p-chain/transactions:listStaking`;
  return filterBatches(s.addresses, Number.POSITIVE_INFINITY).map((b) => apiCall('GET', path, { addresses: b.join(','), sortOrder: 'desc' }));
}

function markerOf(states: ReadonlyMap<string, State>): Marker {
  const m = states.get(BASELINE_KEY);
  return m && 'baseline' in m ? m : { baseline: true, entities: [], newest: {} };
}

/**
 * The rule's view of a listed transaction. The service does not say which address asked for
 * matched: those among its owners and reward addresses; failing that, the whole batch.
 */
export function toSeen(t: StakingTransaction, batch: readonly string[], s: Spec): Seen {
  const bare = (a: string) => a.replace(/^[PX]-/, '');
  const owners = new Set([...(t.rewardAddresses ?? []), ...[...(t.consumedUtxos ?? []), ...(t.emittedUtxos ?? [])].flatMap((u) => u.addresses)].map(bare));
  const mine = batch.filter((a) => owners.has(a));
  const amount = avaxStaked(t, AVAX_ASSET_ID[s.network]);
  return {
    txHash: t.txHash,
    txType: t.txType,
    blockTimestamp: t.blockTimestamp,
    addresses: [...(mine.length > 0 ? mine : batch)].sort(),
    ...(t.nodeId !== undefined ? { nodeId: t.nodeId } : {}),
    ...(amount !== undefined ? { amount } : {}),
    ...(t.startTimestamp !== undefined ? { startTimestamp: t.startTimestamp } : {}),
    ...(t.endTimestamp !== undefined ? { endTimestamp: t.endTimestamp } : {}),
    ...(t.rewardTxHash !== undefined ? { rewardTxHash: t.rewardTxHash } : {}),
  };
}

/** nAVAX of AVAX staked; undefined when the service sent none, or an amount that is not a number. */
function avaxStaked(t: StakingTransaction, avaxId: string): string | undefined {
  if (!t.amountStaked) return undefined;
  let sum = 0n;
  for (const a of t.amountStaked) {
    if (a.assetId !== avaxId) continue;
    const n = navax(a.amount);
    if (n === undefined) return undefined;
    sum += n;
  }
  return sum.toString();
}

function newTransaction(tx: string, st: TransactionState, rewardTxHash: string | undefined, s: Spec): AlertDraft {
  const amount = st.amount === undefined ? 'an unknown amount' : avaxText(st.amount);
  const node = st.nodeId ? ` on ${st.nodeId}` : '';
  const period = st.startTimestamp !== undefined && st.endTimestamp !== undefined ? `, ${isoSeconds(st.startTimestamp)} to ${isoSeconds(st.endTimestamp)}` : '';
  return {
    status: 'event',
    news: 'neutral',
    subject: tx,
    summary: `New staking transaction of ${st.addresses.join(', ')}: ${st.txType} staking ${amount}${node}${period}`,
    labels: { network: s.network, address: st.addresses.join(','), tx_type: st.txType, ...(st.nodeId ? { node: st.nodeId } : {}) },
    details: {
      Transaction: tx,
      Type: st.txType,
      'Watched address': st.addresses.join(', '),
      ...(st.nodeId ? { Node: st.nodeId } : {}),
      'Amount staked': amount,
      ...(st.startTimestamp !== undefined ? { Start: isoSeconds(st.startTimestamp) } : {}),
      ...(st.endTimestamp !== undefined ? { End: isoSeconds(st.endTimestamp) } : {}),
      'Reward transaction': rewardTxHash ?? 'none yet',
      'Block time': isoSeconds(st.blockTimestamp),
    },
  };
}
