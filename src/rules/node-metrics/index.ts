import { formatDuration } from '../../base/duration.js';
import { record } from '../../base/record.js';
import { ownTurn } from '../../base/timers.js';
import { isoSeconds } from '../format.js';
import { isFailed, lookupEach, type Outcome } from '../lookup.js';
import type { Condition, Evaluation, GaugeSample, Resolution, RuleKind } from '../types.js';
import { spread } from './spread.js';
import { advanceCounter, rateOf } from './rate.js';
import { unknownMetric } from './known.js';
import { labelText, metricsUrl } from './read.js';
import { spec, state, type Spec, type State } from './schema.js';
import { readTarget, type Joined, type TargetRead } from './target.js';
import { describeSeries, levelText, matchText, rateText, seriesLabel, valueText } from './text.js';

/** Target (a key of `urls`) → the series of the metric that match, or why it could not be read. */
export type Observation = Record<string, Outcome<TargetRead>>;

/** Reads in a row without a series after which it is gone. */
const GONE_AFTER = 3;

/** Good reads in a row matching no series after which the rule says it judges nothing there. */
export const ABSENT_AFTER = 3;

/** Targets read at once: each is one HTTP read of the operator's own node. */
const CONCURRENCY = 8;

/**
 * Fires on a series of a Prometheus exposition (a node's /ext/metrics, or any exporter's):
 * its level, or a counter's per-second rate over `rate`, against `above` or `below`. Every
 * matched series of every target is its own alert, unless `aggregate` folds a target's into one.
 */
export const nodeMetrics: RuleKind<Spec, Observation, State> = {
  kind: 'node-metrics',
  keyDetails: ['Value'],
  labelNames: ['node', 'metric', 'series', 'chain'],
  spec: spec as unknown as RuleKind<Spec, Observation, State>['spec'],
  selects: ['urls', 'subnets'],
  readsNodes: true,
  state,
  spread,
  gauges: [
    {
      name: 'avawatch_node_metric_value',
      help: "Latest value a node-metrics rule judged: the series' level, its per-second rate over the rule's window, a ratio of two counters' rates (ratioWith, 0..1) or a difference of two gauges (minus); NaN when read but too few to judge (minRate); series is the series' labels as text.",
      labelNames: ['rule', 'node_id', 'metric', 'series'],
    },
    {
      name: 'avawatch_node_metric_series',
      help: "Series matching a node-metrics rule at the node's last read: 0 is a rule that judges nothing there (a misspelt or renamed metric, a matcher matching nothing).",
      labelNames: ['rule', 'node_id', 'metric'],
    },
    {
      name: 'avawatch_node_metric_series_cut',
      help: "Series matching a node-metrics rule at the node's last read that it did not judge: over its maxSeries.",
      labelNames: ['rule', 'node_id', 'metric'],
    },
  ],

  async observe(s, { node, signal }) {
    if (!node) throw new Error('node-metrics needs the node API, which this evaluation was not given');
    return lookupEach(Object.keys(s.urls), CONCURRENCY, signal, async (target) => {
      const text = await node.metricsText(metricsUrl(s.urls[target] as string), signal);
      return ownTurn(() => readTarget(s, text, target));
    });
  },

  evaluate(previous, observation, now, s) {
    const result: Evaluation<State> = { states: new Map(), alerts: [], conditions: [], failed: record() };
    const nowS = Math.floor(now.getTime() / 1000);
    const presents = new Map<string, Resolution>();
    const gone = new Map<string, Resolution>();
    result.resolvedAs = (key) => presents.get(key) ?? gone.get(key);
    const before = byTarget(previous);

    for (const target of Object.keys(s.urls)) {
      const seen = observation[target];
      const mine = before.get(target) ?? [];
      if (seen === undefined || isFailed(seen)) {
        // Nothing known: every series keeps its state, and what held holds (no verdict).
        for (const [key, st] of mine) {
          // A count entry of other matchers (a reload changed them) is of no rule now.
          if (st.count && key !== countKey(target, s)) continue;
          result.states.set(key, st);
          if (st.count) targetVerdict(result, presents, s, st);
          else if (st.breach && st.value !== undefined && (s.aggregate === undefined) === (st.aggregate !== true)) result.conditions?.push(condition(s, key, st, st.value));
        }
        if (isFailed(seen)) (result.failed as Record<string, string>)[target] = seen.failed;
        continue;
      }
      if (seen.retired !== undefined) {
        retire(result, presents, gone, s, target, mine, previous.get(countKey(target, s)), seen.retired, nowS);
        continue;
      }
      if (seen.skip !== undefined) {
        // As a read that failed: every series keeps its state and what held holds, said in the count entry.
        for (const [key, st] of mine) {
          if (st.count) continue;
          result.states.set(key, st);
          if (st.breach && st.value !== undefined && (s.aggregate === undefined) === (st.aggregate !== true)) result.conditions?.push(condition(s, key, st, st.value));
        }
        const was = previous.get(countKey(target, s));
        const counted: State = { target, at: nowS, labels: {}, count: was?.count ?? { matched: 0, cut: 0, none: 0 }, skipped: seen.skip };
        result.states.set(countKey(target, s), counted);
        targetVerdict(result, presents, s, counted);
        continue;
      }
      // The series judged: those tracked already, then new ones in the exposition's order, up
      // to maxSeries with the ones just gone that are still kept; the rest are counted and said.
      const series = unique(seen.series).map((x) => ({ x, key: seriesKey(target, x.name ?? s.metric, x.labels) }));
      const matched = new Set(series.map((m) => m.key));
      let kept = 0;
      for (const [key, st] of mine) if (!st.count && st.aggregate !== true && !matched.has(key) && (st.absent ?? 0) + 1 < GONE_AFTER) kept++;
      const ordered = [...series.filter((m) => previous.has(m.key)), ...series.filter((m) => !previous.has(m.key))];
      const judging = ordered.slice(0, Math.max(0, s.maxSeries - kept));
      const judged: State[] = [];
      for (const { x, key } of judging) {
        const st = next(previous.get(key), target, x, nowS, s);
        result.states.set(key, st);
        if (st.value !== undefined && st.at === nowS) judged.push(st);
        if (s.aggregate !== undefined) continue;
        verdict(result, presents, s, key, st, nowS);
      }
      if (s.aggregate !== undefined) {
        const key = aggregateKey(target, s);
        const values = judged.map((st) => st.value as number);
        const was = previous.get(key);
        // No series with a value now (none exported, or rates not covered yet): no verdict.
        const folded = values.length > 0 ? fold(s.aggregate, values) : undefined;
        const st: State = folded !== undefined ? { target, aggregate: true, at: nowS, labels: {}, value: folded, breach: breaches(s, folded) } : { ...(was ?? { target, aggregate: true, at: nowS, labels: {} }) };
        if (values.length > 0 || was) result.states.set(key, st);
        verdict(result, presents, s, key, st, nowS);
      }
      const none = series.length === 0 && !s.optional ? (previous.get(countKey(target, s))?.count?.none ?? 0) + 1 : 0;
      const counted: State = { target, at: nowS, labels: {}, count: { matched: series.length, cut: ordered.length - judging.length, none } };
      result.states.set(countKey(target, s), counted);
      targetVerdict(result, presents, s, counted);
      // A series the node no longer exports keeps its state for a few reads (a restart, an empty
      // answer), then none; an alert on it resolves saying so.
      for (const [key, st] of mine) {
        if (result.states.has(key) || st.count) continue;
        if (matched.has(key)) {
          // Exported, but over maxSeries now (lowered by a reload): no longer judged, and said so.
          gone.set(key, { summary: `${target}: ${describeSeries(s, st)} is no longer judged: more than maxSeries (${s.maxSeries}) series match`, details: { Node: target, Series: describeSeries(s, st) } });
          continue;
        }
        const absent = (st.absent ?? 0) + 1;
        if (absent < GONE_AFTER) {
          result.states.set(key, { ...st, absent });
          if (st.breach && st.value !== undefined && (s.aggregate === undefined) === (st.aggregate !== true)) result.conditions?.push(condition(s, key, st, st.value));
          continue;
        }
        gone.set(key, { summary: `${target}: ${describeSeries(s, st)} is no longer exported`, details: { Node: target, Series: describeSeries(s, st) } });
      }
    }
    return result;
  },

  samples(s, states) {
    const out: GaugeSample[] = [];
    for (const st of states.values()) {
      if (st.count) {
        const labels = { node_id: st.target, metric: s.metric };
        out.push({ metric: 'avawatch_node_metric_series', labels, value: st.count.matched }, { metric: 'avawatch_node_metric_series_cut', labels, value: st.count.cut });
        continue;
      }
      if ((s.aggregate !== undefined) !== (st.aggregate === true)) continue;
      // A series read but not judged (too few to judge) is NaN: present, with nothing to say.
      const value = st.value ?? (st.unjudged !== undefined ? NaN : undefined);
      if (value === undefined) continue;
      out.push({ metric: 'avawatch_node_metric_value', labels: { node_id: st.target, metric: st.name ?? s.metric, series: seriesLabel(s, st) }, value });
    }
    return out;
  },

  warnings(s) {
    const names = [s.metric, s.ratioWith, s.minus, s.when?.metric, s.until].filter((m): m is string => m !== undefined && !m.startsWith('~'));
    return names.flatMap((m) => {
      const why = unknownMetric(m, s.urls);
      return why === undefined ? [] : [`${why}: it would match no series on a node (docs/rules.md#node-metrics)`];
    });
  },
  describe(s) {
    const n = Object.keys(s.urls).length;
    const m = matchText(s.match);
    const rate = (name: string) => `rate(${name}${m}[${formatDuration(s.rate ?? 0)}])`;
    const what =
      s.ratioWith !== undefined ? `${rate(s.metric)} / (${rate(s.metric)} + ${rate(s.ratioWith)})` : s.minus !== undefined ? `${s.metric}${m} - ${s.minus}${s.minusLabels ? labelText(s.minusLabels) : m}` : s.rate === undefined ? `${s.metric}${m}` : rate(s.metric);
    const folded = s.aggregate === undefined ? what : `${s.aggregate}(${what})`;
    const guards = [
      ...(s.minRate !== undefined ? [`judged from ${s.minRate}/s of both together`] : []),
      ...(s.when ? [`while ${s.when.metric} > ${s.when.above}`] : []),
      ...(s.until !== undefined ? [`until the node exports ${s.until}`] : []),
    ];
    if (typeof s.subnets === 'object') guards.push(`the ${s.subnetLabel} of each node's subnets`);
    const none = s.optional ? 'optional: a node exporting none is not said' : `a node exporting none matching for ${ABSENT_AFTER} reads is said`;
    return `${folded} ${s.above !== undefined ? `> ${s.above}` : `< ${s.below}`} on ${n} node${n === 1 ? '' : 's'}${guards.length > 0 ? ` (${guards.join(', ')})` : ''} (at most ${s.maxSeries} series a node; ${none})`;
  },

  cost: (s) => ({ calls: [], nodeCalls: Object.keys(s.urls).length }),
};

/** The series' new state: its level, or its counter advanced and the rate once the window is covered. */
function next(was: State | undefined, target: string, series: Joined, nowS: number, s: Spec): State {
  const own = series.name !== undefined ? { name: series.name } : {};
  // NaN (a gauge with nothing to say yet) is no verdict: the series keeps what it had.
  const keep = (why?: string): State => {
    const { unjudged: _, ...kept } = was ?? { target, at: nowS, labels: series.labels };
    return { ...kept, target, labels: series.labels, ...own, ...(why !== undefined ? { unjudged: why } : {}) };
  };
  if (Number.isNaN(series.value)) return keep();
  const other = s.ratioWith ?? s.minus;
  if (other !== undefined && (series.other === undefined || Number.isNaN(series.other))) return keep(`${other} has no series with these labels`);
  if (s.ratioWith !== undefined) return nextRatio(was, target, series as Joined & { other: number }, nowS, s);
  if (s.minus !== undefined) {
    const value = series.value - (series.other as number);
    return { target, at: nowS, labels: series.labels, value, breach: breaches(s, value) };
  }
  if (s.rate === undefined) return { target, at: nowS, labels: series.labels, ...own, value: series.value, breach: breaches(s, series.value) };
  const windowS = s.rate / 1000;
  const counter = advanceCounter(was?.points && was.raw !== undefined ? { points: was.points, raw: was.raw } : undefined, nowS, series.value, windowS);
  const rate = rateOf(counter, nowS, windowS);
  const st: State = { target, at: nowS, labels: series.labels, ...own, points: counter.points, raw: counter.raw };
  if (rate !== undefined) return { ...st, value: rate, breach: breaches(s, rate) };
  // The window is not covered yet: no verdict, so an alert that fired stays as it is.
  if (was?.breach) return { ...st, at: was.at, breach: true, ...(was.value !== undefined ? { value: was.value } : {}) };
  return st;
}

/**
 * A ratio of two counters' rates over the window, both advanced (resets counted as in
 * Prometheus): none until both cover it, and none under `minRate` of both together, said.
 */
function nextRatio(was: State | undefined, target: string, series: Joined & { other: number }, nowS: number, s: Spec): State {
  const windowS = (s.rate as number) / 1000;
  const mine = advanceCounter(was?.points && was.raw !== undefined ? { points: was.points, raw: was.raw } : undefined, nowS, series.value, windowS);
  const other = advanceCounter(was?.other, nowS, series.other, windowS);
  const a = rateOf(mine, nowS, windowS);
  const b = rateOf(other, nowS, windowS);
  const st: State = { target, at: nowS, labels: series.labels, points: mine.points, raw: mine.raw, other };
  if (a === undefined || b === undefined) {
    if (was?.breach) return { ...st, at: was.at, breach: true, ...(was.value !== undefined ? { value: was.value } : {}) };
    return st;
  }
  const total = a + b;
  if (total === 0 || total < (s.minRate ?? 0)) {
    return { ...st, unjudged: `too few to judge: ${rateText(total)}/s of ${s.metric} and ${s.ratioWith} together over ${formatDuration(s.rate as number)}${s.minRate !== undefined ? `, under minRate ${s.minRate}/s` : ''}` };
  }
  const ratio = a / total;
  return { ...st, value: ratio, breach: breaches(s, ratio) };
}

/** What holds for one entity (a series, or a target's aggregate): its condition, or its present for a resolution. */
function verdict(result: Evaluation<State>, presents: Map<string, Resolution>, s: Spec, key: string, st: State, nowS: number): void {
  if (st.unjudged !== undefined && st.at === nowS) {
    const what = describeSeries(s, st);
    presents.set(key, { summary: `${st.target}: ${what}: ${st.unjudged}`, details: { Node: st.target, Series: what, Why: st.unjudged, 'Read at': isoSeconds(st.at) } });
    return;
  }
  if (st.value === undefined) return;
  if (st.breach) {
    result.conditions?.push(condition(s, key, st, st.value));
    return;
  }
  if (st.at !== nowS) return;
  const what = describeSeries(s, st);
  presents.set(key, {
    summary: `${st.target}: ${what} is back at ${valueText(s, st.value)} (not ${levelText(s)})`,
    details: { Node: st.target, Series: what, Value: valueText(s, st.value), 'Read at': isoSeconds(st.at) },
  });
}

/**
 * What holds for a target as a whole, from its count entry: it matched no series for a few
 * reads (as Prometheus' absent()), or more than maxSeries; else the present for a resolution.
 */
function targetVerdict(result: Evaluation<State>, presents: Map<string, Resolution>, s: Spec, st: State): void {
  const count = st.count;
  if (!count) return;
  const what = `${s.metric}${matchText(s.match)}`;
  const labels = (series: string) => ({ node: st.target, metric: s.metric, series });
  const absentKey = `${st.target}:absent(${what})`;
  if (count.none >= ABSENT_AFTER) {
    result.conditions?.push({
      key: absentKey,
      subject: absentKey,
      summary: `${st.target}: ${what} matches no series (${ABSENT_AFTER} reads in a row): the rule judges nothing there`,
      resolvedSummary: `${st.target}: ${what} matches series again`,
      labels: labels('absent'),
      details: {
        Node: st.target,
        Series: what,
        'Reads without a series': String(count.none),
        Why: 'a misspelt metric or matcher, or a metric renamed by an AvalancheGo upgrade (`avawatch check` names metrics no known version exports)',
        'Read at': isoSeconds(st.at),
      },
    });
  } else if (count.matched > 0) {
    presents.set(absentKey, { summary: `${st.target}: ${what} matches ${count.matched} series again`, details: { Node: st.target, Series: what, Matched: String(count.matched), 'Read at': isoSeconds(st.at) } });
  }
  const capKey = countKey(st.target, s);
  if (count.cut > 0) {
    result.conditions?.push({
      key: capKey,
      subject: capKey,
      summary: `${st.target}: ${count.matched} series match ${what}, more than maxSeries (${s.maxSeries}): ${count.cut} not judged`,
      resolvedSummary: `${st.target}: the series matching ${what} are within maxSeries (${s.maxSeries}) again`,
      labels: labels('count'),
      details: {
        Node: st.target,
        Series: what,
        Matched: String(count.matched),
        'Not judged': String(count.cut),
        Fix: 'narrow the rule with match:, fold the series with aggregate:, or raise maxSeries',
        'Read at': isoSeconds(st.at),
      },
    });
  } else {
    presents.set(capKey, { summary: `${st.target}: ${count.matched} series match ${what}, within maxSeries (${s.maxSeries})`, details: { Node: st.target, Series: what, Matched: String(count.matched), 'Read at': isoSeconds(st.at) } });
  }
}

function condition(s: Spec, key: string, st: State, value: number): Condition {
  const what = describeSeries(s, st);
  const labels: Record<string, string> = { node: st.target, metric: st.name ?? s.metric, series: seriesLabel(s, st) };
  const chain = st.labels['chain'];
  if (chain !== undefined) labels['chain'] = chain;
  return {
    key,
    subject: key,
    summary: `${st.target}: ${what} is ${valueText(s, value)}, ${levelText(s)}`,
    resolvedSummary: `${st.target}: ${what} is no longer ${levelText(s)}`,
    labels,
    details: {
      Node: st.target,
      Series: what,
      Value: valueText(s, value),
      Level: levelText(s),
      ...(s.rate !== undefined ? { Window: formatDuration(s.rate) } : {}),
      ...(s.minRate !== undefined ? { 'Judged from': `${s.minRate}/s of both counters together` } : {}),
      'Read at': isoSeconds(st.at),
    },
  };
}

function breaches(s: Spec, value: number): boolean {
  return s.above !== undefined ? value > s.above : value < (s.below as number);
}

/**
 * A target that exports `until:`: the rule no longer applies there. Its series are dropped,
 * what fired resolves saying so, and one info event says it the first time.
 */
function retire(result: Evaluation<State>, presents: Map<string, Resolution>, gone: Map<string, Resolution>, s: Spec, target: string, mine: ReadonlyArray<[string, State]>, was: State | undefined, why: string, nowS: number): void {
  const what = `${s.metric}${matchText(s.match)}`;
  const summary = `${target}: ${what} no longer applies: ${why}`;
  const details = { Node: target, Series: what, Why: why, 'Read at': isoSeconds(nowS) };
  for (const [key, st] of mine) if (!st.count) gone.set(key, { summary: `${target}: ${describeSeries(s, st)} no longer applies: ${why}`, details });
  presents.set(`${target}:absent(${what})`, { summary, details });
  presents.set(countKey(target, s), { summary, details });
  result.states.set(countKey(target, s), { target, at: nowS, labels: {}, count: { matched: 0, cut: 0, none: 0 }, retired: true, skipped: why });
  if (was?.retired) return;
  result.alerts.push({ status: 'event', severity: 'info', news: 'neutral', subject: `${target}:${what}`, summary, labels: { node: target, metric: s.metric, series: 'retired' }, details });
}

function seriesKey(target: string, metric: string, labels: Readonly<Record<string, string>>): string {
  return `${target}:${metric}${labelText(labels)}`;
}

/** The target's own entry: what its reads matched (and the key of its over-maxSeries alert). */
function countKey(target: string, s: Spec): string {
  return `${target}:count(${s.metric}${matchText(s.match)})`;
}

function aggregateKey(target: string, s: Spec): string {
  return `${target}:${s.aggregate}(${s.metric}${matchText(s.match)})`;
}

function fold(how: NonNullable<Spec['aggregate']>, values: number[]): number {
  if (how === 'sum') return values.reduce((a, b) => a + b, 0);
  // reduce, not Math.min(...values): a spread of 100k values overflows the stack.
  return how === 'min' ? values.reduce((a, b) => Math.min(a, b), Infinity) : values.reduce((a, b) => Math.max(a, b), -Infinity);
}

/** A series listed twice in one exposition: the last one counts (as a scrape would fail, but a verdict is still possible). */
function unique(series: Joined[]): Joined[] {
  const out = new Map<string, Joined>();
  // By name too: a ~pattern's series of two names may have the same labels.
  for (const x of series) out.set(`${x.name ?? ''}${labelText(x.labels)}`, x);
  return [...out.values()];
}

function byTarget(previous: ReadonlyMap<string, State>): Map<string, Array<[string, State]>> {
  const out = new Map<string, Array<[string, State]>>();
  for (const [key, st] of previous) {
    const list = out.get(st.target) ?? [];
    list.push([key, st]);
    out.set(st.target, list);
  }
  return out;
}
