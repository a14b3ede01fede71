import { labelText, seriesMatching, seriesOf, matcher, type Series } from './read.js';
import { infixOf, type Spec } from './schema.js';

// A target's read: what one exposition gives a rule, joined and guarded before any verdict.

/** A series of the metric, with the value of `ratioWith`'s or `minus`'s series of the same labels. */
export type Joined = Series & { other?: number };

/** What one read of a target gave. */
export interface TargetRead {
  series: Joined[];
  /** `when:` did not hold: why its series are not judged now. */
  skip?: string;
  /** `until:` is exported: why the rule no longer applies there. */
  retired?: string;
}

/**
 * One read of a target: the series of the metric (by name or ~pattern) that match, joined with
 * `ratioWith`'s or `minus`'s of the same labels; or that `until:` is exported, or that `when:`
 * does not hold.
 */
export function readTarget(s: Spec, text: string, target: string): TargetRead {
  if (s.until !== undefined && seriesOf(text, s.until).length > 0) return { series: [], retired: `the node exports ${s.until}` };
  if (s.when) {
    const guard = seriesOf(text, s.when.metric);
    const above = (s.when.above as number);
    if (!guard.some((g) => g.value > above)) {
      const seen = guard.length === 0 ? 'is not exported' : `is ${guard.map((g) => g.value).join(', ')}`;
      return { series: [], skip: `${s.when.metric} ${seen} (not above ${above}): not judged` };
    }
  }
  const subnets = typeof s.subnets === 'object' ? new Set(s.subnets[target] ?? []) : undefined;
  if (subnets?.size === 0) return { series: [], skip: 'validates no subnet besides the Primary Network (the inventory lists no subnets): nothing to judge' };
  const own = matcher(s.match);
  const matches = subnets === undefined ? own : (labels: Readonly<Record<string, string>>) => own(labels) && subnets.has(labels[s.subnetLabel] ?? '');
  const pattern = s.metric.startsWith('~') ? s.metric.slice(1) : undefined;
  const series: Joined[] = (pattern !== undefined ? seriesMatching(text, pattern, infixOf(pattern) as string) : seriesOf(text, s.metric)).filter((x) => matches(x.labels));
  const otherName = s.ratioWith ?? s.minus;
  if (otherName === undefined) return { series };
  const others = new Map(seriesOf(text, otherName).map((x) => [labelText(x.labels), x.value]));
  const partner = (labels: Readonly<Record<string, string>>) => labelText(s.minusLabels ? { ...labels, ...s.minusLabels } : labels);
  return { series: series.map((x) => ({ ...x, other: others.get(partner(x.labels)) })) };
}
