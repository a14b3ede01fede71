import type { Network } from '../api/data/reader.js';
import { crossBoundaries, type AutoRenewInput, type StakerEntry } from './stakers.js';
import { mergeDefined, validatorSample, type PeriodInput, type SampleStatus } from './samples.js';

/** What a change may set on a validation period (World.updateValidation); undefined keeps the value. */
export type ValidationChange = { status?: string | undefined } & {
  [K in 'uptimePerformance' | 'avalancheGoVersion' | 'validatorHealth' | 'delegationCapacity' | 'rewards' | 'amountStaked']?: PeriodInput[K] | undefined;
} & {
  /** An auto-renewed validation's config as a SetAutoRenewedValidatorConfigTx changes it (at once; the boundary decides what it does). */
  autoRenew?: Partial<AutoRenewInput> | undefined;
};

export interface ValidatorEntry extends StakerEntry {
  /** Served verbatim when set (tests that need an exact body). */
  raw?: unknown;
}

interface Rendered {
  period: PeriodInput;
  status: string;
  item: unknown;
}

/**
 * The world's validation periods, per node, and what the Data API lists for them. A bulk
 * network of thousands is read a page at a time, a dozen pages a poll, and every page asks for
 * the whole network: so a network's list of periods is kept until a period is added or a
 * node's periods are set, and each period's item until its period or its status changes.
 * Nothing changes a held period in place (updateValidation and crossBoundaries put a new
 * object in its place, and add() holds a copy of the caller's), so comparing the period object
 * and the status is the whole key. Items are frozen: a route that wrote to one would throw
 * instead of changing what later requests get.
 */
export class Validations {
  /** Periods per `network/nodeId`, in the order added. */
  readonly #byNode = new Map<string, ValidatorEntry[]>();
  /** Each network's periods, and each NodeID's, in #byNode's order; built on demand, dropped when a period is added or set. */
  readonly #byNetwork = new Map<string, ValidatorEntry[]>();
  #byNodeId: Map<string, ValidatorEntry[]> | undefined;
  readonly #rendered = new WeakMap<ValidatorEntry, Rendered>();

  constructor(private readonly nowS: () => number) {}

  set(network: Network, nodeId: string, raw: unknown[]): void {
    this.#byNode.set(
      key(network, nodeId),
      raw.map((r) => {
        const v = r as PeriodInput & { validationStatus: string };
        return { network, period: v, status: v.validationStatus, raw: r };
      }),
    );
    this.#changed();
  }

  add(network: Network, period: PeriodInput, status: string, autoRenew?: AutoRenewInput): void {
    const list = this.#byNode.get(key(network, period.nodeId)) ?? [];
    list.push({ network, period: structuredClone(period), status, ...(autoRenew ? { autoRenew: { ...autoRenew } } : {}) });
    this.#byNode.set(key(network, period.nodeId), list);
    this.#changed();
  }

  /** Changes a node's period (by txHash, else the one that started last): see World.updateValidation. */
  update(nodeId: string, change: ValidationChange, txHash?: string): void {
    const entries = this.#ofNodeId(nodeId);
    const target = txHash ? entries.find((e) => e.period.txHash === txHash) : [...entries].sort((a, b) => b.period.startTimestamp - a.period.startTimestamp)[0];
    if (!target) throw new Error(`no validation period of ${nodeId}${txHash ? ` with txHash ${txHash}` : ''}`);
    const { status, validatorHealth, rewards, autoRenew, ...rest } = change;
    if (status !== undefined) target.status = status;
    if (autoRenew) {
      if (!target.autoRenew) throw new Error(`${nodeId}'s validation ${target.period.txHash} is not auto-renewed`);
      target.autoRenew = mergeDefined(target.autoRenew, autoRenew);
    }
    const p: PeriodInput = mergeDefined(target.period, rest);
    if (validatorHealth) p.validatorHealth = mergeDefined(target.period.validatorHealth ?? {}, validatorHealth);
    if (rewards) p.rewards = mergeDefined(target.period.rewards ?? {}, rewards);
    target.period = p;
    delete target.raw;
  }

  /** A node's periods as the per-node route lists them; undefined for a node never seen. */
  ofNode(network: Network, nodeId: string): unknown[] | undefined {
    this.#crossBoundaries();
    return this.#byNode.get(key(network, nodeId))?.map((e) => this.#item(e));
  }

  /** Every period of every node on a network, rendered as the per-node route renders them. */
  ofNetwork(network: Network): unknown[] {
    this.#crossBoundaries();
    return this.#entries(network).map((e) => this.#item(e));
  }

  /** The rendered (not verbatim) periods of a network, for the P-Chain API. */
  stakers(network: Network): ValidatorEntry[] {
    this.#crossBoundaries();
    return this.#entries(network).filter((e) => e.raw === undefined);
  }

  #entries(network: Network): ValidatorEntry[] {
    const net = canonical(network);
    let list = this.#byNetwork.get(net);
    if (!list) {
      list = [...this.#byNode.values()].flat().filter((e) => canonical(e.network) === net);
      this.#byNetwork.set(net, list);
    }
    return list;
  }

  /** The periods whose item names this NodeID (a verbatim one may name another than its key's). */
  #ofNodeId(nodeId: string): readonly ValidatorEntry[] {
    if (!this.#byNodeId) {
      this.#byNodeId = new Map();
      for (const e of [...this.#byNode.values()].flat()) {
        const list = this.#byNodeId.get(e.period.nodeId) ?? [];
        list.push(e);
        this.#byNodeId.set(e.period.nodeId, list);
      }
    }
    return this.#byNodeId.get(nodeId) ?? [];
  }

  #changed(): void {
    this.#byNetwork.clear();
    this.#byNodeId = undefined;
  }

  #item(e: ValidatorEntry): unknown {
    if (e.raw !== undefined) return e.raw;
    const kept = this.#rendered.get(e);
    if (kept && kept.period === e.period && kept.status === e.status) return kept.item;
    const item = deepFreeze(render(e));
    this.#rendered.set(e, { period: e.period, status: e.status, item });
    return item;
  }

  /** Auto-renewed validations move over the boundaries the clock has passed (each a new period object). */
  #crossBoundaries(): void {
    const now = this.nowS();
    for (const list of this.#byNode.values()) for (const e of list) if (e.autoRenew) crossBoundaries(e, now);
  }
}

function render(e: ValidatorEntry): unknown {
  const sample = validatorSample[e.status as SampleStatus];
  if (sample) return sample(e.period);
  return { ...validatorSample.pending(e.period), validationStatus: e.status };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

// fuji and testnet are the same network.
function canonical(network: Network): string {
  return network === 'testnet' ? 'fuji' : network;
}

function key(network: Network, nodeId: string): string {
  return `${canonical(network)}/${nodeId}`;
}
