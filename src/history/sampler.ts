import type { Sample } from '../store/index.js';
import type { GaugeSample } from '../base/types.js';

/**
 * The figures kept over time, from the gauges of the rules' committed state. The status
 * page reads these series names: keep them.
 */
export const SAMPLED: readonly SampledFigure[] = [
  { metric: 'avawatch_validator_uptime_percent', series: 'uptime_percent', entity: 'node_id' },
  { metric: 'avawatch_l1_validator_balance_avax', series: 'l1_balance_avax', entity: 'validation_id' },
  // The network baseline's percentiles, one series each (`network_uptime_p50`, entity the network): the page's band.
  ...(['uptime', 'reachability'] as const).flatMap((f) =>
    (['p10', 'p50', 'p90'] as const).map((p) => ({ metric: `avawatch_network_validator_${f}_percent`, series: `network_${f}_${p}`, entity: 'network', where: { percentile: p }, wholeOnly: true })),
  ),
];

export interface SampledFigure {
  metric: string;
  series: string;
  /** The label naming what the figure is about. */
  entity: string;
  /** Only the samples with these labels (a gauge split into series by one). */
  where?: Readonly<Record<string, string>>;
  /**
   * Only while the network's last sweep was whole (`avawatch_network_baseline_complete` 1): a
   * stale baseline keeps its old figures in the gauges, and they must not be kept as new.
   */
  wholeOnly?: boolean;
}

/** Gauge saying whether an entity's figures are new: 0 leaves out the `wholeOnly` figures of it. */
const COMPLETE = 'avawatch_network_baseline_complete';

/** Labels naming what a lookup is about: a failed lookup of either makes the figure old. */
const LOOKUP_LABELS = ['node_id', 'validation_id'] as const;

export interface SamplerStore {
  lastSampleAt(series: string): Promise<Map<string, number>>;
  addSamples(samples: readonly Sample[]): Promise<void>;
}

export interface RuleSampling {
  rule: string;
  /** The gauge names of the rule's kind: a rule with none of SAMPLED costs nothing. */
  gauges: readonly string[];
  /** The rule's gauge samples from its last committed state. */
  samplesOf: (metric: string) => Iterable<GaugeSample>;
  /** Entities whose lookup failed in that evaluation: their state, and figures, are the old ones. */
  failing: () => ReadonlySet<string>;
  /** Unix ms. */
  now: number;
  everyMs: number;
}

/**
 * After each committed evaluation: at most one sample per series and entity every `everyMs`.
 * A rule is skipped whole until one of its entities is due, so a rule of 100k nodes
 * evaluated every 30s reads its samples once per period, and writes them in one transaction.
 */
export class Sampler {
  readonly #store: SamplerStore;
  /** series → entity → time of its last sample: read from the file once, then kept here. */
  #last: Map<string, Map<string, number>> | undefined;
  /** rule → when one of its entities is next due. */
  readonly #due = new Map<string, number>();

  constructor(store: SamplerStore) {
    this.#store = store;
  }

  /** Returns how many samples were written. */
  async sample(r: RuleSampling): Promise<number> {
    const due = this.#due.get(r.rule);
    if (due !== undefined && r.now < due) return 0;
    const wanted = SAMPLED.filter((s) => r.gauges.includes(s.metric));
    if (wanted.length === 0) return 0;
    const last = await this.#lastTimes();
    const failing = r.failing();
    const out: Sample[] = [];
    let next = r.now + r.everyMs;
    let stale: Set<string> | undefined;
    for (const def of wanted) {
      const seen = last.get(def.series) ?? new Map<string, number>();
      last.set(def.series, seen);
      if (def.wholeOnly) stale ??= new Set([...r.samplesOf(COMPLETE)].filter((s) => s.value !== 1).map((s) => s.labels[def.entity] ?? ''));
      for (const s of r.samplesOf(def.metric)) {
        const entity = s.labels[def.entity];
        if (entity === undefined || LOOKUP_LABELS.some((l) => failing.has(s.labels[l] ?? ''))) continue;
        if (def.where && Object.entries(def.where).some(([k, v]) => s.labels[k] !== v)) continue;
        if (def.wholeOnly && stale?.has(entity)) continue;
        const at = seen.get(entity);
        if (at !== undefined && at + r.everyMs > r.now) {
          next = Math.min(next, at + r.everyMs);
          continue;
        }
        out.push({ series: def.series, entity, at: r.now, value: s.value });
      }
    }
    if (out.length > 0) await this.#store.addSamples(out);
    // Only once written: a write that threw is tried again at the next evaluation.
    for (const s of out) last.get(s.series)?.set(s.entity, s.at);
    this.#due.set(r.rule, next);
    return out.length;
  }

  /** A rule removed or changed by a reload: its next evaluation looks again. */
  forget(rule: string): void {
    this.#due.delete(rule);
  }

  async #lastTimes(): Promise<Map<string, Map<string, number>>> {
    if (this.#last) return this.#last;
    const read = new Map<string, Map<string, number>>();
    for (const s of SAMPLED) read.set(s.series, await this.#store.lastSampleAt(s.series));
    // Another sample may have read them meanwhile: the first read stays (it is kept up to date).
    this.#last ??= read;
    return this.#last;
  }
}
