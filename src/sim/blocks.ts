import type { Network } from '../api/data/reader.js';
import type { PrimaryChain } from './samples.js';

// The world's proposed blocks (block-production) and the signature aggregator's outcomes
// (signature-aggregator): World delegates to these.

export const PRIMARY_CHAINS: readonly PrimaryChain[] = ['p-chain', 'c-chain', 'x-chain'];

/** The blockchain ids the route also accepts for each chain (fuji and testnet share theirs). */
const CHAIN_IDS: Record<'mainnet' | 'fuji', Record<string, PrimaryChain>> = {
  mainnet: {
    '11111111111111111111111111111111LpoYY': 'p-chain',
    '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5': 'c-chain',
    '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM': 'x-chain',
  },
  fuji: {
    '11111111111111111111111111111111LpoYY': 'p-chain',
    yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp: 'c-chain',
    '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm': 'x-chain',
  },
};

const base = (n: Network): 'mainnet' | 'fuji' => (n === 'mainnet' ? 'mainnet' : 'fuji');

/** `p-chain`, `c-chain`, `x-chain` or one of their blockchain ids on the network; undefined otherwise. */
export function primaryChain(network: Network, id: string): PrimaryChain | undefined {
  return (PRIMARY_CHAINS as readonly string[]).includes(id) ? (id as PrimaryChain) : CHAIN_IDS[base(network)][id];
}

/** Blocks at given times, or one every 3600/perHour seconds from `from` until `until` (or on). */
export type BlockSeries = { network: Network; nodeId: string; chain: PrimaryChain } & ({ times: number[] } | { perHour: number; from: number; until?: number });

/** A generated series lists at most this many of its newest blocks. */
const SERIES_CAP = 10_000;

export class ProposedBlocks {
  readonly #series: BlockSeries[] = [];

  add(series: BlockSeries): void {
    this.#series.push(series);
  }

  /** The node stops proposing (on one chain, or all) at `at`: its rates end there. */
  stop(nodeId: string, chain: PrimaryChain | undefined, at: number): void {
    for (const s of this.#series) if (s.nodeId === nodeId && (chain === undefined || s.chain === chain) && 'perHour' in s) s.until = Math.min(s.until ?? at, at);
  }

  /** Who proposes anything (the contract walk asks for each). */
  proposers(): Array<{ network: Network; nodeId: string; chain: PrimaryChain }> {
    return this.#series.map(({ network, nodeId, chain }) => ({ network, nodeId, chain }));
  }

  /** The times of the node's blocks on the chain up to `now`, within [start, end], newest first (render a page with proposedBlockItem). */
  list(network: Network, chain: PrimaryChain, nodeId: string, now: number, start = 0, end = Infinity): number[] {
    const upper = Math.min(now, end);
    const times = new Set<number>();
    for (const s of this.#series) {
      if (base(s.network) !== base(network) || s.chain !== chain || s.nodeId !== nodeId) continue;
      if ('times' in s) for (const t of s.times) if (t >= start && t <= upper) times.add(t);
      if (!('perHour' in s) || s.perHour <= 0) continue;
      const step = 3600 / s.perHour;
      const last = Math.min(upper, s.until ?? Infinity);
      for (let k = Math.floor((last - s.from) / step), n = 0; k >= 0 && n < SERIES_CAP; k--, n++) {
        const t = Math.floor(s.from + k * step);
        if (t < start) break;
        times.add(t);
      }
    }
    return [...times].sort((a, b) => b - a);
  }
}

/** How the aggregator answers for one txHash: an HTTP error status (null: success) after latencyMs. */
export interface AggregatorOutcome {
  fail: number | null;
  latencyMs: number;
}

/** The service's messages for the statuses a probe meets. */
function failureMessage(status: number, txHash: string): string {
  if (status === 400) return `Invalid txHash ${txHash}`;
  if (status === 404) return `Transaction ${txHash} not found`;
  if (status === 503) return 'Failed to aggregate signatures: not enough stake weight signed the message';
  if (status === 429) return 'Rate limit exceeded';
  return 'Failed to aggregate signatures';
}

export class SignatureAggregator {
  readonly #outcomes = new Map<string, AggregatorOutcome>();

  set(txHash: string, outcome: Partial<AggregatorOutcome>): void {
    this.#outcomes.set(txHash, { fail: null, latencyMs: 0, ...this.#outcomes.get(txHash), ...outcome });
  }

  /** txHashes whose outcome was set, with it (the contract walk asks for each). */
  entries(): Array<[string, AggregatorOutcome]> {
    return [...this.#outcomes];
  }

  /** A signed message, or the status and message of the service's error; after latencyMs. */
  answer(txHash: string): { latencyMs: number } & ({ signedMessage: string } | { fail: number; message: string }) {
    const o = this.#outcomes.get(txHash) ?? { fail: null, latencyMs: 0 };
    return o.fail === null ? { latencyMs: o.latencyMs, signedMessage: signedMessage(txHash) } : { latencyMs: o.latencyMs, fail: o.fail, message: failureMessage(o.fail, txHash) };
  }
}

/** A stable hex message for the txHash: a warp message with its BLS signature. */
function signedMessage(txHash: string): string {
  let h = 0;
  for (const c of txHash) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `0x${h.toString(16).padStart(8, '0')}${'ab'.repeat(92)}`;
}
