import { formatDuration } from '../../base/duration.js';
import { labelText } from './read.js';
import type { Spec, State } from './schema.js';

// How the kind's alerts write levels, values and what they judged.

export function rateText(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(3)));
}

export function levelText(s: Spec): string {
  const level = (s.above ?? s.below) as number;
  const text = s.ratioWith !== undefined ? percent(level) : s.rate !== undefined ? `${level}/s` : String(level);
  return `${s.above !== undefined ? 'above' : 'below'} ${text}`;
}

export function valueText(s: Spec, value: number): string {
  if (s.ratioWith !== undefined) return percent(value);
  const text = Number.isInteger(value) || !Number.isFinite(value) ? String(value) : String(Number(value.toPrecision(4)));
  return s.rate !== undefined ? `${text}/s` : text;
}

/** A ratio as a percentage: 0.8621 → 86.21%. */
export function percent(ratio: number): string {
  return `${Number((ratio * 100).toPrecision(4))}%`;
}

/** How an alert names what it judged: `avalanche_x{chain="C"}`, `rate of … over 5m`, `sum of …`. */
export function describeSeries(s: Spec, st: State): string {
  const labels = st.aggregate ? matchText(s.match) : Object.keys(st.labels).length === 0 ? '' : labelText(st.labels);
  const series = `${st.name ?? s.metric}${labels}`;
  const measured =
    s.ratioWith !== undefined
      ? `${series} / (${s.metric} + ${s.ratioWith}) over ${formatDuration(s.rate as number)}`
      : s.minus !== undefined
        ? `${series} - ${s.minus}${s.minusLabels ? labelText(s.minusLabels) : ''}`
        : s.rate !== undefined
          ? `rate of ${series} over ${formatDuration(s.rate)}`
          : series;
  return st.aggregate ? `${s.aggregate ?? 'aggregate'} of ${measured}` : measured;
}

export function seriesLabel(s: Spec, st: State): string {
  return st.aggregate ? (s.aggregate ?? 'aggregate') : labelText(st.labels);
}

/** The matchers as Prometheus writes them: `{chain="C",tag=~"all|application"}`. */
export function matchText(match: Readonly<Record<string, string>>): string {
  const names = Object.keys(match).sort();
  if (names.length === 0) return '';
  return `{${names.map((n) => {
    const v = match[n] as string;
    return v.startsWith('~') ? `${n}=~${JSON.stringify(v.slice(1))}` : `${n}=${JSON.stringify(v)}`;
  }).join(',')}}`;
}
