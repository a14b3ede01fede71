import { z } from 'zod';
import { durationMs, httpUrl } from '../../base/fields.js';
import { network } from '../fields.js';
import { MAX_SERIES } from './read.js';

/** A Prometheus metric name, and a label name. */
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const metricName = z.string().regex(METRIC_NAME, 'expected a Prometheus metric name such as avalanche_snowman_blks_processing');
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
    /** The series name, exactly as exposed (`avalanche_snowman_blks_processing`), or `~regex` over names (anchored) with a fixed part. */
    metric: z.string().superRefine((text, ctx) => {
      if (!text.startsWith('~')) {
        if (!METRIC_NAME.test(text)) ctx.addIssue({ code: 'custom', message: 'expected a Prometheus metric name such as avalanche_snowman_blks_processing, or ~regex over names' });
        return;
      }
      const why = patternProblem(text.slice(1));
      if (why !== undefined) ctx.addIssue({ code: 'custom', message: why });
    }),
    /**
     * Judge rate(metric) / (rate(metric) + rate(ratioWith)) of the series of both with the
     * same labels (a success ratio, 0..1): needs `rate`.
     */
    ratioWith: metricName.optional(),
    /** For `ratioWith`: under this many per second of both counters together there are too few to judge. */
    minRate: z.number().min(0).optional(),
    /** Judge metric − minus of the series of both with the same labels (a lag of two heights). */
    minus: metricName.optional(),
    /**
     * For `minus`: the partner series has these label values in place of the judged series'
     * own (a subnet's failing checks minus the node-wide ones counted under every tag).
     */
    minusLabels: z.record(z.string().regex(LABEL_NAME, 'expected a label name'), z.string()).optional(),
    /**
     * A target's series are judged only while a series of this metric on it (any labels) is
     * above the level: otherwise no verdict, as for a failed read (an unset gauge never pages,
     * and what fired stays as it is).
     */
    when: z.strictObject({ metric: metricName, above: z.number() }).optional(),
    /**
     * The rule applies to a target until it exports this series (the successor of what it
     * judges, e.g. the VM that replaced it): from then on it judges nothing there, says so once
     * and raises no "matches no series".
     */
    until: metricName.optional(),
    /**
     * Target → the subnets it validates: only series whose `subnetLabel` is one of them are
     * judged. `from-inventory` (with `validators:`) fills it from each validator's `subnets`;
     * a target with none has nothing to judge and is not said to match nothing.
     */
    subnets: z
      .union([z.literal('from-inventory'), z.record(z.string().min(1), z.array(z.string().min(1)))])
      .refine((v) => v !== 'from-inventory', 'subnets: from-inventory takes them from the inventory: select validators with validators: (or list them: {NodeID-…: [subnet ID]})')
      .optional(),
    /** The label `subnets` compares: health's `tag` (a chain's check is tagged with its subnet ID, chains/manager.go). */
    subnetLabel: z.string().regex(LABEL_NAME, 'expected a label name').default('tag'),
    /**
     * The series exist only on some nodes (a chain the node may not run, a VM of a later
     * version): a target exporting none matching is not said, as it is by default after three reads.
     */
    optional: z.boolean().default(false),
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
    if (s.ratioWith !== undefined && s.rate === undefined) ctx.addIssue({ code: 'custom', path: ['ratioWith'], message: 'a ratio of two counters needs rate: (the window of both rates)' });
    if (s.minRate !== undefined && s.ratioWith === undefined) ctx.addIssue({ code: 'custom', path: ['minRate'], message: 'minRate guards a ratio: set ratioWith' });
    if (s.metric.startsWith('~') && (s.ratioWith ?? s.minus) !== undefined) ctx.addIssue({ code: 'custom', path: ['metric'], message: 'ratioWith and minus join two named metrics: not a ~pattern' });
    if (s.minusLabels !== undefined && s.minus === undefined) ctx.addIssue({ code: 'custom', path: ['minusLabels'], message: 'minusLabels picks the series of minus: set minus' });
    if (s.minus !== undefined && (s.rate !== undefined || s.ratioWith !== undefined)) ctx.addIssue({ code: 'custom', path: ['minus'], message: 'minus judges the difference of two levels: not with rate or ratioWith' });
  });
export type Spec = z.output<typeof spec>;

/** A fixed part a name pattern must have, found with the native search before the regex runs. */
export const MIN_INFIX = 4;

/**
 * The longest run of name characters every name the pattern matches contains (outside groups
 * and classes, not made optional by a quantifier), or undefined when it has none: with no `|`
 * at its top level, each such run is mandatory.
 */
export function infixOf(pattern: string): string | undefined {
  let depth = 0;
  let best = '';
  let run = '';
  const end = () => {
    if (run.length > best.length) best = run;
    run = '';
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\') {
      end();
      i++;
      continue;
    }
    if (c === '[') {
      end();
      const close = pattern.indexOf(']', i + 2);
      i = close < 0 ? pattern.length : close;
      continue;
    }
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (depth === 0 && /[a-zA-Z0-9_:]/.test(c)) {
      // A quantified character is optional or repeated: the run stops before it.
      if (/[*?+{]/.test(pattern[i + 1] ?? '')) end();
      else run += c;
      continue;
    }
    if (depth === 0 && c === '|') return undefined;
    end();
  }
  end();
  return best.length > 0 ? best : undefined;
}

function patternProblem(pattern: string): string | undefined {
  try {
    new RegExp(`^(?:${pattern})$`, 'u');
  } catch (e) {
    return `"${pattern}" is not a regular expression: ${e instanceof Error ? e.message : String(e)}`;
  }
  const infix = infixOf(pattern);
  if (infix === undefined || infix.length < MIN_INFIX) {
    return `a metric pattern needs a fixed part of at least ${MIN_INFIX} name characters outside groups and alternatives (as _eth_chain_block_bad_count in ~avalanche_.+_eth_chain_block_bad_count): it finds the candidate lines of a large exposition`;
  }
  return undefined;
}

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
  /** The series' own name, when the rule's metric is a ~pattern. */
  name: z.string().optional(),
  /** For `ratioWith`: the other counter, as `points`/`raw` are the metric's. */
  other: z.object({ points: z.array(z.tuple([z.number(), z.number()])), raw: z.number() }).optional(),
  /** Why the last read gave no verdict though it read the series: `too few polls to judge …` (minRate). */
  unjudged: z.string().optional(),
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
  /** The target's own entry: why its series were not judged at the last read (`when:` not holding, `until:` present). */
  skipped: z.string().optional(),
  /** The target's own entry: `until:` is exported there, the rule no longer applies. */
  retired: z.boolean().optional(),
});
export type State = z.output<typeof state>;
