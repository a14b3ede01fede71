import { describe, expect, it } from 'vitest';
import { labelText, matcher, MAX_SERIES, seriesMatching, seriesOf } from './read.js';

const MIB = 1024 * 1024;
const METRIC = 'avalanche_snowman_blks_processing';

/**
 * The exposition as the reader sees it, counting the characters its searches pass over
 * (`indexOf` from where it starts to where it stops): the reader finds lines with `indexOf`
 * alone, so this is its work on the text, whatever the machine's speed.
 */
class CountedText extends String {
  searched = 0;
  override indexOf(needle: string, from = 0): number {
    const at = super.indexOf(needle, from);
    this.searched += (at < 0 ? this.length : at + needle.length) - from;
    return at;
  }
}

/** One line without a newline: the metric's name every 40 characters, never at a line's start but once. */
function oneLine(bytes: number, ours: string): string {
  const unit = ` x ${METRIC}`.padEnd(40, '.');
  return `${ours} ${unit.repeat(Math.floor((bytes - ours.length) / 40))}`;
}

describe('seriesOf on hostile lines', () => {
  for (const size of [1 * MIB, 32 * MIB]) {
    it(`searches each byte of a ${size / MIB} MiB line at most twice, however often the name appears in it`, () => {
      const text = new CountedText(`other_metric 1\n${oneLine(size, 'avalanche_other 2')}\n${METRIC}{chain="C"} 7\n`);
      expect(seriesOf(text as unknown as string, METRIC)).toEqual([{ labels: { chain: 'C' }, value: 7 }]);
      expect(text.searched).toBeLessThanOrEqual(2 * text.length);
    });
  }

  it("reads a 32 MiB line of the metric's own: a label value clipped, escapes read, the value after it", () => {
    const plain = `${METRIC}{chain="${'x'.repeat(32 * MIB)}"} 3`;
    expect(seriesOf(plain, METRIC)).toEqual([{ labels: { chain: `${'x'.repeat(200)}…` }, value: 3 }]);
    const escapes = `${METRIC}{chain="${'\\"'.repeat(16 * MIB)}"} 4\n`;
    expect(seriesOf(escapes, METRIC)).toEqual([{ labels: { chain: `${'"'.repeat(200)}…` }, value: 4 }]);
    const labels = (n: number) => `${METRIC}{${Array.from({ length: n }, (_, i) => `l${i}="v"`).join(',')},z="\\\\"} 5\n`;
    expect(seriesOf(labels(99), METRIC)[0]?.labels['z']).toBe('\\');
    expect(() => seriesOf(labels(101), METRIC)).toThrow(/^avalanche_snowman_blks_processing: a line that does not parse \(more than 100 labels: /);
  });

  it('a broken line of 32 MiB fails with a short message', () => {
    const message = (() => {
      try {
        seriesOf(`${METRIC}{chain="${'y'.repeat(32 * MIB)}\n`, METRIC);
      } catch (e) {
        return e instanceof Error ? e.message : String(e);
      }
      return 'no error';
    })();
    expect(message).toMatch(/^avalanche_snowman_blks_processing: a line that does not parse \(the value of chain is not closed: /);
    expect(message.length).toBeLessThan(400);
  });

  it('reads the forms of the text format: no labels, blanks, a trailing comma, a timestamp, CRLF', () => {
    const text = [`${METRIC} 1`, `${METRIC}\t{ a = "1" , } 2 1700000000000`, `${METRIC}{a="3"} 3\r`, `${METRIC}_total 9`, `# ${METRIC} 8`].join('\n');
    expect(seriesOf(text, METRIC)).toEqual([
      { labels: {}, value: 1 },
      { labels: { a: '1' }, value: 2 },
      { labels: { a: '3' }, value: 3 },
    ]);
  });
});

describe('seriesOf: what a node says, and what it is told when a line does not parse', () => {
  /** The message a node's read fails with (what the rule's failure says). */
  const failure = (text: string) => {
    try {
      seriesOf(text, 'm');
      return 'no error';
    } catch (e) {
      return (e as Error).message;
    }
  };

  it('each way a label set breaks is named', () => {
    expect(failure('m{1a="x"} 1')).toBe('m: a line that does not parse (expected a label name: m{1a="x"} 1)');
    expect(failure('m{a:"x"} 1')).toBe('m: a line that does not parse (expected = after a: m{a:"x"} 1)');
    expect(failure('m{a=x} 1')).toBe('m: a line that does not parse (expected a quoted value of a: m{a=x} 1)');
    expect(failure('m{a="x" b="y"} 1')).toBe('m: a line that does not parse (expected , or } after a label: m{a="x" b="y"} 1)');
    expect(failure('m{a="x\\"} 1')).toBe('m: a line that does not parse (the value of a is not closed: m{a="x\\"} 1)');
    expect(failure(`m{${'a'.repeat(60)}:"x"} 1`)).toBe(`m: a line that does not parse (expected = after ${'a'.repeat(40)}: m{${'a'.repeat(60)}:"x"} 1)`);
  });

  it('a broken line is quoted to 200 characters, its blanks as one space', () => {
    const long = `m{a=${'x'.repeat(300)}} 1`;
    expect(failure(long)).toBe(`m: a line that does not parse (expected a quoted value of a: ${long.slice(0, 200)}…)`);
    expect(failure('m{a=\t \tx} 1')).toBe('m: a line that does not parse (expected a quoted value of a: m{a= x} 1)');
    const exact = `m{a=${'x'.repeat(196)}`;
    expect(exact).toHaveLength(200);
    expect(failure(exact)).toBe(`m: a line that does not parse (expected a quoted value of a: ${exact})`);
  });

  it('values as Go reads them: infinities and NaN in any case, exponents; no value, or text, is not a number', () => {
    const values = ['+Inf', 'inf', 'INF', '-Inf', 'nan', 'NaN', '1e3', '-0.5', '0x10'].map((v) => seriesOf(`m ${v}`, 'm')[0]?.value);
    expect(values).toEqual([Infinity, Infinity, Infinity, -Infinity, NaN, NaN, 1000, -0.5, 16]);
    expect(failure('m ')).toBe('m: a sample value "" is not a number');
    expect(failure('m{a="1"}')).toBe('m: a sample value "" is not a number');
    expect(failure(`m ${'z'.repeat(100)}`)).toBe(`m: a sample value "${'z'.repeat(40)}" is not a number`);
  });

  it('label values: \\n, \\\\ and \\" read, another escape kept as written; a label name clipped as its value is', () => {
    expect(seriesOf('m{a="x\\ny",b="p\\tq",c="\\\\"} 1', 'm')[0]?.labels).toEqual({ a: 'x\ny', b: 'p\\tq', c: '\\' });
    // Backslashes in several values of one line: each value's own read, the next found after it.
    expect(seriesOf('m{a="p\\\\",b="plain",c="q\\"r",d="s\\\\t\\"",e="u"} 1', 'm')[0]?.labels).toEqual({ a: 'p\\', b: 'plain', c: 'q"r', d: 's\\t"', e: 'u' });
    const name = 'n'.repeat(250);
    expect(Object.keys(seriesOf(`m{${name}="v"} 1`, 'm')[0]?.labels ?? {})).toEqual([`${'n'.repeat(200)}…`]);
    expect(seriesOf(`m{a="${'v'.repeat(200)}"} 1`, 'm')[0]?.labels['a']).toBe('v'.repeat(200));
  });

  it('only lines of the name itself, at a line\'s start, followed by labels or a blank', () => {
    expect(seriesOf('m_total 1\nxm 2\nm\t3\nm{} 4\nm', 'm').map((x) => x.value)).toEqual([3, 4]);
  });

  it('up to 1000 series of the metric; more fails the read, saying how many', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `m{i="${i}"} 1`).join('\n');
    expect(seriesOf(lines(MAX_SERIES), 'm')).toHaveLength(1000);
    expect(failure(lines(1001))).toBe('m: 1001 series, more than the 1000 a rule reads: narrow it with match:');
    const many = (n: number) => Array.from({ length: n }, (_, i) => `avalanche_x${i}_bad_count 1`).join('\n');
    expect(seriesMatching(many(1000), 'avalanche_.+_bad_count', '_bad_count')).toHaveLength(1000);
    expect(() => seriesMatching(many(1001), 'avalanche_.+_bad_count', '_bad_count')).toThrow('~avalanche_.+_bad_count: 1001 series, more than the 1000 a rule reads: narrow it with match:');
  });

  it('a ~pattern: the whole name matches, followed by labels or a blank; the fixed part within the name', () => {
    const text = ['avalanche_a_bad_count{x="1"} 1', 'avalanche_b_bad_count\t2', 'avalanche_c_bad_count_total 3', 'xavalanche_d_bad_count 4', 'avalanche_e_bad_countx 5', 'q{l="avalanche_f_bad_count"} 6', 'avalanche_g_bad_count'].join('\n');
    expect(seriesMatching(text, 'avalanche_.+_bad_count', '_bad_count').map((x) => [x.name, x.value])).toEqual([
      ['avalanche_a_bad_count', 1],
      ['avalanche_b_bad_count', 2],
    ]);
  });
});

describe('matchers and label text', () => {
  it('exact text, "" for an absent label, ~regex anchored at both ends', () => {
    const m = matcher({ chain: 'C', tag: '~all|app.*', gone: '' });
    expect(m({ chain: 'C', tag: 'all' })).toBe(true);
    expect(m({ chain: 'C', tag: 'application' })).toBe(true);
    expect(m({ chain: 'C', tag: 'xall' })).toBe(false);
    expect(m({ chain: 'C', tag: 'allx' })).toBe(false);
    expect(m({ chain: 'C', tag: 'all', gone: 'x' })).toBe(false);
    expect(m({ chain: 'X', tag: 'all' })).toBe(false);
    expect(matcher({ tag: '~' })({})).toBe(true);
    expect(matcher({})({ any: 'x' })).toBe(true);
  });

  it('labels sorted by name, values quoted as JSON', () => {
    expect(labelText({ tag: 'a"b', chain: 'C' })).toBe('{chain="C",tag="a\\"b"}');
    expect(labelText({})).toBe('{}');
  });
});
