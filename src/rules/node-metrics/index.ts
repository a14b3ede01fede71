import { formatDuration } from '../../base/duration.js';
import { record } from '../../base/record.js';
import { isoSeconds } from '../format.js';
import { isFailed, lookupEach, type Outcome } from '../lookup.js';
import type { Condition, Evaluation, GaugeSample, Resolution, RuleKind } from '../types.js';
import { advanceCounter, rateOf } from './rate.js';
import { unknownMetric } from './known.js';
import { labelText, matcher, metricsUrl, seriesOf, type Series } from './read.js';
import { spec, state, type Spec, type State } from './schema.js';

/** Target (a key of `urls`) → the series of the metric that match, or why it could not be read. */
export type Observation = Record<string, Outcome<Series[]>>;

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
  selects: ['urls'],
  state,
  gauges: [
    {
      name: 'avawatch_node_metric_value',
      help: "Latest value a node-metrics rule judged: the series' level, or its per-second rate over the rule's window; series is the series' labels as text.",
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
    const matches = matcher(s.match);
    return lookupEach(Object.keys(s.urls), CONCURRENCY, signal, async (target) => {
      const text = await node.metricsText(metricsUrl(s.urls[target] as string), signal);
      return seriesOf(text, s.metric).filter((x) => matches(x.labels));
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
      // The series judged: those tracked already, then new ones in the exposition's order, up
      // to maxSeries with the ones just gone that are still kept; the rest are counted and said.
      const series = unique(seen).map((x) => ({ x, key: seriesKey(target, s.metric, x.labels) }));
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
      const none = series.length === 0 ? (previous.get(countKey(target, s))?.count?.none ?? 0) + 1 : 0;
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
      if (st.value === undefined || (s.aggregate !== undefined) !== (st.aggregate === true)) continue;
      out.push({ metric: 'avawatch_node_metric_value', labels: { node_id: st.target, metric: s.metric, series: seriesLabel(s, st) }, value: st.value });
    }
    return out;
  },

  warnings(s) {
    const why = unknownMetric(s.metric, s.urls);
    return why === undefined ? [] : [`${why}: it would match no series on a node (docs/rules.md#node-metrics)`];
  },
  describe(s) {
    const n = Object.keys(s.urls).length;
    const what = s.rate === undefined ? `${s.metric}${matchText(s.match)}` : `rate(${s.metric}${matchText(s.match)}[${formatDuration(s.rate)}])`;
    const folded = s.aggregate === undefined ? what : `${s.aggregate}(${what})`;
    return `${folded} ${s.above !== undefined ? `> ${s.above}` : `< ${s.below}`} on ${n} node${n === 1 ? '' : 's'} (at most ${s.maxSeries} series a node; a node exporting none matching for ${ABSENT_AFTER} reads is said)`;
  },

  cost: (s) => ({ calls: [], nodeCalls: Object.keys(s.urls).length }),
};

/** The series' new state: its level, or its counter advanced and the rate once the window is covered. */
function next(was: State | undefined, target: string, series: Series, nowS: number, s: Spec): State {
  // NaN (a gauge with nothing to say yet) is no verdict: the series keeps what it had.
  if (Number.isNaN(series.value)) return { ...(was ?? { target, at: nowS, labels: series.labels }), target, labels: series.labels };
  if (s.rate === undefined) return { target, at: nowS, labels: series.labels, value: series.value, breach: breaches(s, series.value) };
  const windowS = s.rate / 1000;
  const counter = advanceCounter(was?.points && was.raw !== undefined ? { points: was.points, raw: was.raw } : undefined, nowS, series.value, windowS);
  const rate = rateOf(counter, nowS, windowS);
  const st: State = { target, at: nowS, labels: series.labels, points: counter.points, raw: counter.raw };
  if (rate !== undefined) return { ...st, value: rate, breach: breaches(s, rate) };
  // The window is not covered yet: no verdict, so an alert that fired stays as it is.
  if (was?.breach) return { ...st, at: was.at, breach: true, ...(was.value !== undefined ? { value: was.value } : {}) };
  return st;
}

/** What holds for one entity (a series, or a target's aggregate): its condition, or its present for a resolution. */
function verdict(result: Evaluation<State>, presents: Map<string, Resolution>, s: Spec, key: string, st: State, nowS: number): void {
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
  const labels: Record<string, string> = { node: st.target, metric: s.metric, series: seriesLabel(s, st) };
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
      'Read at': isoSeconds(st.at),
    },
  };
}

function breaches(s: Spec, value: number): boolean {
  return s.above !== undefined ? value > s.above : value < (s.below as number);
}

function levelText(s: Spec): string {
  const unit = s.rate !== undefined ? '/s' : '';
  return s.above !== undefined ? `above ${s.above}${unit}` : `below ${s.below}${unit}`;
}

function valueText(s: Spec, value: number): string {
  const text = Number.isInteger(value) || !Number.isFinite(value) ? String(value) : String(Number(value.toPrecision(4)));
  return s.rate !== undefined ? `${text}/s` : text;
}

/** How an alert names what it judged: `avalanche_x{chain="C"}`, `rate of … over 5m`, `sum of …`. */
function describeSeries(s: Spec, st: State): string {
  const series = st.aggregate ? `${s.metric}${matchText(s.match)}` : `${s.metric}${Object.keys(st.labels).length === 0 ? '' : labelText(st.labels)}`;
  const measured = s.rate !== undefined ? `rate of ${series} over ${formatDuration(s.rate)}` : series;
  return st.aggregate ? `${s.aggregate ?? 'aggregate'} of ${measured}` : measured;
}

function seriesLabel(s: Spec, st: State): string {
  return st.aggregate ? (s.aggregate ?? 'aggregate') : labelText(st.labels);
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

/** The matchers as Prometheus writes them: `{chain="C",tag=~"all|application"}`. */
function matchText(match: Readonly<Record<string, string>>): string {
  const names = Object.keys(match).sort();
  if (names.length === 0) return '';
  return `{${names.map((n) => {
    const v = match[n] as string;
    return v.startsWith('~') ? `${n}=~${JSON.stringify(v.slice(1))}` : `${n}=${JSON.stringify(v)}`;
  }).join(',')}}`;
}

function fold(how: NonNullable<Spec['aggregate']>, values: number[]): number {
  if (how === 'sum') return values.reduce((a, b) => a + b, 0);
  // reduce, not Math.min(...values): a spread of 100k values overflows the stack.
  return how === 'min' ? values.reduce((a, b) => Math.min(a, b), Infinity) : values.reduce((a, b) => Math.max(a, b), -Infinity);
}

/** A label set listed twice in one exposition: the last one counts (as a scrape would fail, but a verdict is still possible). */
function unique(series: Series[]): Series[] {
  const out = new Map<string, Series>();
  for (const x of series) out.set(labelText(x.labels), x);
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
