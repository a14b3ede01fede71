import { describe, expect, it } from 'vitest';
import { seriesOf } from './read.js';

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
