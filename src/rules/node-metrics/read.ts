/** One series of the metric: its labels and its value (±Infinity and NaN as Prometheus has them). */
export interface Series {
  labels: Record<string, string>;
  value: number;
  /** Its name, when read by a pattern (seriesMatching). */
  name?: string;
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
 * only they are parsed (labels, escapes, values). Comment lines are left out, so a histogram's
 * `_bucket`/`_sum`/`_count` are plain series as Prometheus stores them.
 *
 * Linear in the text: every search starts where the last one ended, and a line that is not one
 * of the metric's is skipped whole, so each byte is searched at most twice whatever the lines'
 * lengths (a 32 MiB line without a newline is two native scans, not one per match).
 */
export function seriesOf(text: string, metric: string): Series[] {
  const lines: string[] = [];
  let count = 0;
  let from = 0;
  while (from < text.length) {
    const at = text.indexOf(metric, from);
    if (at < 0) break;
    const next = text[at + metric.length];
    // At a line's start, and the whole name: `foo` is not `foo_total`. Any other match is
    // inside a line that is not ours: go on after that line.
    const ours = (at === 0 || text[at - 1] === '\n') && (next === '{' || next === ' ' || next === '\t');
    const end = text.indexOf('\n', at + metric.length);
    from = end < 0 ? text.length : end + 1;
    if (!ours) continue;
    if (++count <= MAX_SERIES) lines.push(text.slice(at, end < 0 ? undefined : end));
  }
  if (count > MAX_SERIES) throw new Error(`${metric}: ${count} series, more than the ${MAX_SERIES} a rule reads: narrow it with match:`);
  return lines.map((line) => sampleOf(line, metric));
}

/**
 * The samples whose name matches `pattern` (anchored), each with its name. Linear as seriesOf:
 * the candidate lines are found by the pattern's fixed part (`infix`) with the native search,
 * each line is looked at once (its start found back from the first hit, the search going on
 * after its end), and only a line whose name contains the infix is tested against the regex.
 */
export function seriesMatching(text: string, pattern: string, infix: string): Series[] {
  const re = new RegExp(`^(?:${pattern})$`, 'u');
  const found: Array<{ line: string; name: string }> = [];
  let count = 0;
  let from = 0;
  while (from < text.length) {
    const at = text.indexOf(infix, from);
    if (at < 0) break;
    const start = text.lastIndexOf('\n', at) + 1;
    const end = text.indexOf('\n', at);
    from = end < 0 ? text.length : end + 1;
    NAME.lastIndex = start;
    const name = NAME.exec(text)?.[0];
    // The infix within the name (not in a label or a comment), and the whole name matching.
    if (name === undefined || at + infix.length > start + name.length || !re.test(name)) continue;
    const next = text[start + name.length];
    if (next !== '{' && next !== ' ' && next !== '\t') continue;
    if (++count <= MAX_SERIES) found.push({ line: text.slice(start, end < 0 ? undefined : end), name });
  }
  if (count > MAX_SERIES) throw new Error(`~${pattern}: ${count} series, more than the ${MAX_SERIES} a rule reads: narrow it with match:`);
  return found.map(({ line, name }) => ({ ...sampleOf(line, name), name }));
}

const NAME = /[a-zA-Z_:][a-zA-Z0-9_:]*/y;

/** Series of one metric a rule reads from one exposition; more is a rule too wide (or a hostile answer). */
export const MAX_SERIES = 1_000;
const MAX_LABEL = 200;
/** Labels of one sample: AvalancheGo's have at most a few. */
const MAX_LABELS = 100;

const LABEL_NAME = /[a-zA-Z_][a-zA-Z0-9_]*/y;
const BLANKS = /[ \t]*/y;

/**
 * One sample line of `metric` (`name{label="value",…} value [timestamp]`), read in one pass
 * with native searches: text is cut with slices, never built a character at a time, so a line
 * of any length costs one walk (the npm parser this replaces took 7 s on a 32 MiB line). The
 * timestamp is not used.
 */
function sampleOf(raw: string, metric: string): Series {
  const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  let i = metric.length;
  const broken = (why: string): Error => {
    const quoted = line.slice(0, 201).replace(/\s+/g, ' ');
    return new Error(`${metric}: a line that does not parse (${why}: ${quoted.length > 200 ? `${quoted.slice(0, 200)}…` : quoted})`);
  };
  const blanks = () => {
    BLANKS.lastIndex = i;
    BLANKS.exec(line);
    i = BLANKS.lastIndex;
  };
  const slash = { at: -1 };
  const labels: Record<string, string> = {};
  let count = 0;
  blanks();
  if (line[i] === '{') {
    i++;
    for (;;) {
      blanks();
      if (line[i] === '}') break;
      if (++count > MAX_LABELS) throw broken(`more than ${MAX_LABELS} labels`);
      LABEL_NAME.lastIndex = i;
      const name = LABEL_NAME.exec(line)?.[0];
      if (name === undefined) throw broken('expected a label name');
      i += name.length;
      blanks();
      if (line[i] !== '=') throw broken(`expected = after ${name.slice(0, 40)}`);
      i++;
      blanks();
      if (line[i] !== '"') throw broken(`expected a quoted value of ${name.slice(0, 40)}`);
      const value = quoted(line, i + 1, slash);
      if (value === undefined) throw broken(`the value of ${name.slice(0, 40)} is not closed`);
      labels[clip(name)] = clip(value.text);
      i = value.end + 1;
      blanks();
      if (line[i] === ',') i++;
      else if (line[i] !== '}') throw broken('expected , or } after a label');
    }
    i++;
    blanks();
  }
  const end = line.slice(i).search(/[ \t]/);
  return { labels, value: numberOf(metric, end < 0 ? line.slice(i) : line.slice(i, i + end)) };
}

/**
 * A label value from just after its opening quote: its text with `\\`, `\"` and `\n` read, and
 * where its closing quote is. The quote is found with the native search; only a value with a
 * backslash before it is walked a character at a time (once), and only what a label keeps is
 * unescaped. `slash` carries the next backslash of the line from one value to the next, so
 * that no value searches the rest of the line again.
 */
function quoted(line: string, from: number, slash: { at: number }): { text: string; end: number } | undefined {
  let end = line.indexOf('"', from);
  if (end < 0) return undefined;
  if (slash.at < from) {
    const at = line.indexOf('\\', from);
    slash.at = at < 0 ? Infinity : at;
  }
  if (slash.at < end) {
    for (end = slash.at; end < line.length; end++) {
      const c = line.charCodeAt(end);
      if (c === QUOTE) break;
      if (c === BACKSLASH) end++;
    }
    if (end >= line.length) return undefined;
  }
  let text = '';
  for (let i = from; i < end && text.length <= MAX_LABEL; i++) {
    const c = line[i] as string;
    if (c !== '\\') {
      text += c;
      continue;
    }
    const e = line[++i] as string;
    text += e === 'n' ? '\n' : e === '\\' || e === '"' ? e : `\\${e}`;
  }
  return { text, end };
}

const QUOTE = 34;
const BACKSLASH = 92;

/** A label name or value as long as an alert label may be. */
function clip(text: string): string {
  return text.length > MAX_LABEL ? `${text.slice(0, MAX_LABEL)}…` : text;
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
