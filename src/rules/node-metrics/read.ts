import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One series of the metric: its labels and its value (±Infinity and NaN as Prometheus has them). */
export interface Series {
  labels: Record<string, string>;
  value: number;
}

/**
 * The URL to read for a target: one whose path ends in `/metrics` (an exporter's, or a node's
 * `/ext/metrics`) as it is; anything else is a node's API base, with or without a path prefix
 * (`http://host:9650`, `http://proxy/node/NodeID-…`), read at `<base>/ext/metrics`.
 */
export function metricsUrl(url: string): string {
  const u = new URL(url);
  if (/\/metrics$/.test(u.pathname)) return u.toString();
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/ext/metrics`;
  return u.toString();
}

/**
 * The samples named `metric` in an exposition. AvalancheGo's runs to several MB: rather than
 * parse every family, the lines of this one name are found with the native string search and
 * only they go to the parser, which reads labels, escapes and values. Comment lines are left
 * out, so a histogram's `_bucket`/`_sum`/`_count` are plain series as Prometheus stores them.
 */
export function seriesOf(text: string, metric: string): Series[] {
  const lines: string[] = [];
  let from = 0;
  while (from < text.length) {
    const at = text.indexOf(metric, from);
    if (at < 0) break;
    const end = text.indexOf('\n', at);
    const next = text[at + metric.length];
    from = end < 0 ? text.length : end + 1;
    // At a line's start, and the whole name: `foo` is not `foo_total`.
    if ((at > 0 && text[at - 1] !== '\n') || (next !== '{' && next !== ' ' && next !== '\t')) {
      from = at + metric.length;
      continue;
    }
    lines.push(text.slice(at, end < 0 ? undefined : end).replace(/\r$/, ''));
  }
  if (lines.length === 0) return [];
  if (lines.length > MAX_SERIES) throw new Error(`${metric}: ${lines.length} series, more than the ${MAX_SERIES} a rule reads: narrow it with match:`);
  let families: ReturnType<typeof parsePrometheusTextFormat>;
  try {
    families = parsePrometheusTextFormat(`${lines.join('\n')}\n`);
  } catch (err) {
    // The parser quotes the whole line: the exposition's text is not ours to repeat at length.
    const text = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ');
    throw new Error(`${metric}: a line that does not parse (${text.length > 200 ? `${text.slice(0, 200)}…` : text})`);
  }
  const out: Series[] = [];
  for (const family of families) {
    for (const sample of family.metrics) out.push({ labels: clipped(sample.labels), value: numberOf(metric, sample.value ?? '') });
  }
  return out;
}

/** Series of one metric a rule reads from one exposition; more is a rule too wide (or a hostile answer). */
export const MAX_SERIES = 1_000;
const MAX_LABEL = 200;

/** Label names and values as long as an alert label may be. */
function clipped(labels: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels ?? {})) out[k.slice(0, MAX_LABEL)] = v.length > MAX_LABEL ? `${v.slice(0, MAX_LABEL)}…` : v;
  return out;
}

/** A sample's value as Go's ParseFloat reads it; the parser lets anything through, and `""` must not read as 0. */
function numberOf(metric: string, text: string): number {
  const word = text.toLowerCase();
  if (word === '+inf' || word === 'inf') return Infinity;
  if (word === '-inf') return -Infinity;
  if (word === 'nan') return NaN;
  const n = text.trim() === '' ? NaN : Number(text);
  if (Number.isNaN(n)) throw new Error(`${metric}: a sample value "${text.slice(0, 40)}" is not a number`);
  return n;
}

/** Does a series' label set satisfy the matchers? Exact text (empty = the label is absent), or `~regex`, anchored. */
export function matcher(match: Readonly<Record<string, string>>): (labels: Readonly<Record<string, string>>) => boolean {
  const tests = Object.entries(match).map(([name, want]) => {
    if (!want.startsWith('~')) return (labels: Readonly<Record<string, string>>) => (labels[name] ?? '') === want;
    const re = new RegExp(`^(?:${want.slice(1)})$`, 'u');
    return (labels: Readonly<Record<string, string>>) => re.test(labels[name] ?? '');
  });
  return (labels) => tests.every((t) => t(labels));
}

/** `{chain="C",tag="all"}`, labels sorted: the series' identity within its target. */
export function labelText(labels: Readonly<Record<string, string>>): string {
  const names = Object.keys(labels).sort();
  return `{${names.map((n) => `${n}=${JSON.stringify(labels[n])}`).join(',')}}`;
}
