import { z } from 'zod';
import { durationMs, httpUrl } from '../../base/fields.js';
import { network } from '../fields.js';
import { MAX_SERIES } from './read.js';

/** A Prometheus metric name, and a label name. */
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A matcher value: exact text, or `~regex` (anchored at both ends, as Prometheus' `=~`). */
const matcherValue = z.string().superRefine((text, ctx) => {
  if (!text.startsWith('~')) return;
  try {
    new RegExp(`^(?:${text.slice(1)})$`, 'u');
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: `"${text.slice(1)}" is not a regular expression: ${e instanceof Error ? e.message : String(e)}` });
  }
});

export const AGGREGATES = ['sum', 'min', 'max'] as const;

export const spec = z
  .strictObject({
    /** Only for `validators:` (which inventory validators fill `urls`): the metrics themselves are the node's. */
    network: network.default('mainnet'),
    /** Target → URL: a NodeID (or any name) → a node's API base (read at /ext/metrics) or an exporter's …/metrics. */
    urls: z
      .record(z.string().min(1), httpUrl)
      .refine((urls) => Object.keys(urls).length > 0, 'list at least one target: `urls: { NodeID-…: http://127.0.0.1:9650 }` (or `validators: all`)'),
    /** The series name, exactly as exposed (`avalanche_snowman_blks_processing`). */
    metric: z.string().regex(METRIC_NAME, 'expected a Prometheus metric name such as avalanche_snowman_blks_processing'),
    /** Label matchers: `{chain: C}` exact (an empty value matches a missing label), `{tag: "~all|application"}` a regex. */
    match: z.record(z.string().regex(LABEL_NAME, 'expected a label name'), matcherValue).default({}),
    above: z.number().optional(),
    below: z.number().optional(),
    /** Judge the counter's per-second rate over this window instead of its level. */
    rate: durationMs.refine((ms) => ms >= 1000, 'rate: a window of at least 1s').optional(),
    /** Judge one value per target across the matched series, instead of each series on its own. */
    aggregate: z.enum(AGGREGATES).optional(),
    /** Series judged on one target at most: more (a label that churns, a matcher too wide) are said, not judged. */
    maxSeries: z.number().int().min(1).max(MAX_SERIES).default(100),
  })
  .superRefine((s, ctx) => {
    if ((s.above === undefined) === (s.below === undefined)) ctx.addIssue({ code: 'custom', message: 'set exactly one of "above" or "below"' });
  });
export type Spec = z.output<typeof spec>;

export const state = z.object({
  /** The key of `urls` it was read from. */
  target: z.string(),
  /** One value per target across its series (`aggregate`), not one series. */
  aggregate: z.boolean().optional(),
  /** The latest value judged: the level, or the rate once the window is covered. */
  value: z.number().optional(),
  /** The last verdict breached the level: a read that gives no verdict keeps the alert as it is. */
  breach: z.boolean().optional(),
  /** When (seconds) it was last read. */
  at: z.number(),
  /** The series' labels, as exposed. */
  labels: z.record(z.string(), z.string()),
  /**
   * For `rate`: [seconds, counter value with resets added back] — monotonic, so thinning the
   * list loses no increase; `raw` is the counter as last read, to see the next reset.
   */
  points: z.array(z.tuple([z.number(), z.number()])).optional(),
  /** Reads in a row that listed the target but not this series: dropped after a few (one odd answer resolves nothing). */
  absent: z.number().optional(),
  raw: z.number().optional(),
  /**
   * The target's own entry, not a series': what its last good read matched (`matched`), how
   * many of those were over `maxSeries` (`cut`), and reads in a row that matched none (`none`).
   */
  count: z.object({ matched: z.number(), cut: z.number(), none: z.number() }).optional(),
});
export type State = z.output<typeof state>;
