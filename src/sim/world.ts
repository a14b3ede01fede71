import type { Network } from '../api/data/reader.js';
import { intervalStart, nextIntervalStart, type TimeInterval } from '../api/catalog.js';
import { SimClock } from './clock.js';
import { ProposedBlocks, SignatureAggregator } from './blocks.js';
import { PChainWorld } from './pchain.js';
import { LongTail } from './longtail.js';
import { EvmLedger } from './evm.js';
import { NodeWorld } from './node.js';
import { pChainHeightAnswer } from './proposervm.js';
import { pchainAnswer, type AutoRenewInput, type PChainAnswer } from './stakers.js';
import { Validations, type ValidationChange } from './validations.js';
import {
  delegatorItem,
  icmItem,
  l1ValidatorItem,
  mergeDefined,
  type DelegationInput,
  type IcmInput,
  type L1Input,
  type PeriodInput,
} from './samples.js';

export type { ValidationChange } from './validations.js';

/** A one-shot fault: the next matching request gets this answer instead. */
export interface Fault {
  status: number;
  body?: string;
  retryAfter?: number;
  /** Only requests whose path contains this. */
  pathIncludes?: string;
  /**
   * Only requests whose path matches this regular expression. A substring cannot tell the
   * bulk validator list from the per-node route (`/validators` is in both); an anchored
   * pattern can: `'/validators$'` hits only the bulk list.
   */
  pathMatches?: string;
  /**
   * Only requests whose decoded query (`nodeIds=NodeID-a,NodeID-b&pageSize=10`) contains
   * this: `'NodeID-a'` fails only the pages that ask for that node.
   */
  query?: string;
  /**
   * The error body's message quotes every header of the request, the API key among them,
   * as some gateways' error pages do (a secret that comes back in the service's text).
   * Replaces the default body; ignored when `body` is set.
   */
  echoHeaders?: boolean;
  /** Answer only after this long (a hung server, for timeout tests). */
  delayMs?: number;
  /**
   * Only requests that carry a `pageToken`: a later page of a list, so the walk fails (or
   * restarts) part-way. The service's one-shot "Page token has expired" answer is
   * `{status: 400, body: '{"message":"Page token has expired, restart from the first page",…}', pageToken: true}`.
   */
  pageToken?: boolean;
  /**
   * Send the body `chunkBytes` at a time, `intervalMs` apart, after the headers: a trickled
   * answer. Without `body`, the answer is the one the service would give, only slowed.
   */
  trickle?: { chunkBytes: number; intervalMs: number };
}

/** Standing faults, drawn per request from the seeded random source. */
export interface FaultSettings {
  /** Share of requests answered with a 5xx (0..1). */
  errorRate: number;
  /** Added to every answer. */
  latencyMs: number;
  /** Share of successful answers whose body is cut off (0..1). */
  malformedRate: number;
  /** Every list answers with the same next-page token, forever. */
  repeatPageToken: boolean;
  /** Every page token is refused as expired. */
  expirePageTokens: boolean;
}

interface L1Entry {
  network: Network;
  input: L1Input;
  /** nAVAX at `balanceAt` (unix s); drains at feePerSecond. */
  balance: number;
  balanceAt: number;
  feePerSecond: number;
  deactivated: boolean;
}

interface MetricSeries {
  /** Value of every interval starting at or after `from`; the last segment wins. */
  segments: Array<{ from: number; value: number }>;
}

export interface OperationEntry {
  operationId: string;
  operationType: string;
  createdAt: number;
  polls: number;
  completeAfterPolls: number;
  outcome: 'COMPLETED' | 'COMPLETED_WITH_WARNING' | 'FAILED';
  request: Record<string, unknown>;
}

/** What the simulated chain holds; the scenario, the control API and tests change it. */
export class World {
  readonly faults: Fault[] = [];
  settings: FaultSettings = { errorRate: 0, latencyMs: 0, malformedRate: 0, repeatPageToken: false, expirePageTokens: false };
  /** How the service answers for a node it has never seen: a 404, or an empty list. */
  unknownNode: 'not-found' | 'empty' = 'not-found';
  /**
   * The floor the bulk validator list applies to uptimePerformance when a request has no
   * minUptimePerformance. The specification says "Default is 90"; whether the live service
   * applies it is not known, so tests run both ways. Undefined: no floor.
   */
  bulkDefaultMinUptime: number | undefined = undefined;
  /** How exports started from now on end. */
  exportPlan: Pick<OperationEntry, 'completeAfterPolls' | 'outcome'> = { completeAfterPolls: 3, outcome: 'COMPLETED' };

  readonly #validations = new Validations(() => this.clock.now());
  readonly #delegations: Array<{ network: Network; input: DelegationInput; status: string }> = [];
  readonly #l1 = new Map<string, L1Entry>();
  readonly #icm: Array<{ network: Network; input: IcmInput; status: string; deliveredAt?: number }> = [];
  readonly #metrics = new Map<string, MetricSeries>();
  readonly operations = new Map<string, OperationEntry>();
  /** Staking transactions and subnets (src/sim/pchain.ts). */
  readonly pchain = new PChainWorld();
  /** NFT tokens, deployments, block and X-chain asset transactions (src/sim/longtail.ts). */
  readonly longTail = new LongTail();
  #nextOperation = 1;
  /** Blocks nodes proposed on the primary-network chains (block-production). */
  readonly proposedBlocks = new ProposedBlocks();
  /** How the signature aggregator answers, per txHash (signature-aggregator). */
  readonly signatureAggregator = new SignatureAggregator();
  /** EVM address activity (transactions, ERC-20 transfers, internal calls) per chain. */
  readonly evm = new EvmLedger();
  /** The operators' own nodes: /node/{NodeID}/ext/health, info, metrics (src/sim/node.ts). */
  readonly nodes = new NodeWorld(() => this.clock.nowMs());

  constructor(readonly clock: SimClock = new SimClock(Date.now(), 1)) {}

  // ---- validators (src/sim/validations.ts)
  setValidators(network: Network, nodeId: string, raw: unknown[]): void {
    this.#validations.set(network, nodeId, raw);
  }

  addValidation(network: Network, period: PeriodInput, status: string, autoRenew?: AutoRenewInput): void {
    this.#validations.add(network, period, status, autoRenew);
  }

  /** Sets the status of a node's period (by txHash, else the one that started last). */
  setValidationStatus(nodeId: string, status: string, txHash?: string): void {
    this.updateValidation(nodeId, { status }, txHash);
  }

  /**
   * Changes a node's period in place (by txHash, else the one that started last): its status
   * and what it renders. `validatorHealth` and `rewards` merge over what the period held;
   * `avalancheGoVersion: null` leaves the field out. A verbatim item set for the node is
   * dropped: from now on the period is rendered.
   */
  updateValidation(nodeId: string, change: ValidationChange, txHash?: string): void {
    this.#validations.update(nodeId, change, txHash);
  }

  validators(network: Network, nodeId: string): unknown[] | undefined {
    return this.#validations.ofNode(network, nodeId);
  }

  /** Every period of every node on a network, rendered as the per-node route renders them. */
  allValidators(network: Network): unknown[] {
    return this.#validations.ofNetwork(network);
  }

  /** The P-Chain API (/ext/bc/P) of a node on a network: platform.* over this world's validations. */
  pchainApi(network: Network, method: string, params: Record<string, unknown>): PChainAnswer {
    const entries = this.#validations.stakers(network);
    const height = pChainHeightAnswer(method, this.clock.nowMs());
    if (height) return height;
    return pchainAnswer(network, method, params, entries);
  }

  // ---- delegators
  addDelegation(network: Network, input: DelegationInput, status: string): void {
    this.#delegations.push({ network, input, status });
  }

  setDelegationStatus(txHash: string, status: string): void {
    this.updateDelegation(txHash, { status });
  }

  /** Changes a delegation's status and/or the rewards it shows once completed (nAVAX). */
  updateDelegation(txHash: string, change: { status?: string | undefined; grossReward?: string | undefined; netReward?: string | undefined }): void {
    const found = this.#delegations.find((d) => d.input.txHash === txHash);
    if (!found) throw new Error(`no delegation with txHash ${txHash}`);
    const { status, ...rewards } = change;
    if (status !== undefined) found.status = status;
    found.input = mergeDefined(found.input, rewards);
  }

  delegators(network: Network): unknown[] {
    return this.#delegations.filter((d) => same(d.network, network)).map((d) => delegatorItem(d.input, d.status));
  }

  // ---- L1 validators
  addL1Validator(network: Network, input: L1Input, balance: number, feePerSecond: number): void {
    this.#l1.set(input.validationId, { network, input, balance, balanceAt: this.clock.now(), feePerSecond, deactivated: false });
  }

  updateL1Validator(validationId: string, change: { balance?: number; feePerSecond?: number; deactivate?: boolean }): void {
    const v = this.#l1.get(validationId);
    if (!v) throw new Error(`no L1 validator ${validationId}`);
    const now = this.clock.now();
    v.balance = change.balance ?? this.#remaining(v, now);
    v.balanceAt = now;
    if (change.feePerSecond !== undefined) v.feePerSecond = change.feePerSecond;
    if (change.deactivate) v.deactivated = true;
  }

  l1Validators(network: Network): Array<{ item: ReturnType<typeof l1ValidatorItem>; active: boolean }> {
    const now = this.clock.now();
    return [...this.#l1.values()]
      .filter((v) => same(v.network, network))
      .map((v) => {
        const remaining = this.#remaining(v, now);
        return { item: l1ValidatorItem(v.input, remaining), active: !v.deactivated && remaining > 0 };
      });
  }

  #remaining(v: L1Entry, now: number): number {
    return Math.max(0, Math.floor(v.balance - v.feePerSecond * Math.max(0, now - v.balanceAt)));
  }

  // ---- ICM messages
  addIcmMessage(network: Network, input: IcmInput, status: string): void {
    this.#icm.push({ network, input, status });
  }

  setIcmStatus(messageId: string, status: string): void {
    const found = this.#icm.find((m) => m.input.messageId === messageId);
    if (!found) throw new Error(`no ICM message ${messageId}`);
    found.status = status;
    found.deliveredAt = this.clock.now();
  }

  icmMessages(address: string, network?: Network): unknown[] {
    const a = address.toLowerCase();
    return this.#icm
      .filter((m) => (network === undefined || same(m.network, network)) && (m.input.from.toLowerCase() === a || m.input.to.toLowerCase() === a))
      .sort((x, y) => y.input.sourceTimestamp - x.input.sourceTimestamp)
      .map((m) => icmItem(m.input, m.status, m.deliveredAt));
  }

  // ---- chain metrics
  setMetric(chainId: string, metric: string, interval: TimeInterval, value: number, from = this.clock.now()): void {
    const series = this.#metrics.get(`${chainId}/${metric}/${interval}`) ?? { segments: [] };
    series.segments.push({ from: intervalStart(interval, from), value });
    this.#metrics.set(`${chainId}/${metric}/${interval}`, series);
  }

  /** Points newest first, from `start` to now; the newest is the interval still running (partial). */
  metricPoints(chainId: string, metric: string, interval: TimeInterval, start: number, end: number): Array<{ timestamp: number; value: number }> {
    const now = this.clock.now();
    const series = this.#metrics.get(`${chainId}/${metric}/${interval}`) ?? { segments: [{ from: 0, value: defaultValue(chainId, metric) }] };
    const points: Array<{ timestamp: number; value: number }> = [];
    for (let t = intervalStart(interval, Math.min(end, now)); t >= intervalStart(interval, start) && points.length < 5000; ) {
      const segment = series.segments.filter((s) => s.from <= t).at(-1) ?? series.segments[0];
      const next = nextIntervalStart(interval, t);
      const share = now < next ? (now - t) / (next - t) : 1;
      points.push({ timestamp: t, value: Math.round((segment?.value ?? 0) * share * 100) / 100 });
      t = intervalStart(interval, t - 1);
    }
    return points;
  }

  // ---- export operations
  startExport(operationType: string, request: Record<string, unknown>): OperationEntry {
    const op: OperationEntry = {
      operationId: `op-${String(this.#nextOperation++).padStart(4, '0')}-${Math.floor(this.clock.now()).toString(36)}`,
      operationType,
      createdAt: this.clock.now(),
      polls: 0,
      ...this.exportPlan,
      request,
    };
    this.operations.set(op.operationId, op);
    return op;
  }

  /** Takes the next fault for a path and its query, if one is queued. */
  takeFault(path: string, query: URLSearchParams): Fault | undefined {
    const decoded = [...query].map(([k, v]) => `${k}=${v}`).join('&');
    const index = this.faults.findIndex(
      (f) =>
        (f.pathIncludes === undefined || path.includes(f.pathIncludes)) &&
        (f.pathMatches === undefined || new RegExp(f.pathMatches).test(path)) &&
        (f.query === undefined || decoded.includes(f.query)) &&
        (!f.pageToken || query.has('pageToken')),
    );
    return index === -1 ? undefined : this.faults.splice(index, 1)[0];
  }
}

// fuji and testnet are the same network.
function same(a: Network, b: Network): boolean {
  return (a === 'testnet' ? 'fuji' : a) === (b === 'testnet' ? 'fuji' : b);
}

/** A plausible steady value for a series nobody set, stable per chain and metric. */
function defaultValue(chainId: string, metric: string): number {
  let h = 0;
  for (const c of `${chainId}/${metric}`) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return 1_000 + (h % 9_000);
}
