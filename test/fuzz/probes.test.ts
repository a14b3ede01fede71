import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { leaks, Unsearched } from './probes.js';

// The fuzzer searches only what changed since its last search (probes.ts, Unsearched): a
// secret written anywhere after that, even across the pieces it compares, is still found.

const SECRET = 'gk-probe-4c1d9e7a2b5f8a3c6d0e';
const dir = mkdtempSync(join(tmpdir(), 'avawatch-probes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const found = (text: string) => leaks({ here: text }, [SECRET]);

describe("the fuzzer's search for secrets", () => {
  it('finds a piece written into a file across the border of two compared pieces, and nothing where nothing changed', () => {
    const path = join(dir, 'state.db');
    const bytes = Buffer.alloc(3 * 4096, 'x');
    writeFileSync(path, bytes);
    const search = new Unsearched();
    expect(found(search.stateFile(path))).toEqual([]);
    expect(search.stateFile(path)).toBe('\n');
    // 12 characters of the key: 5 at the end of the first piece (no leak yet), then 7 at the start of the second (the first unchanged).
    bytes.write(SECRET.slice(3, 8), 4096 - 5, 'latin1');
    writeFileSync(path, bytes);
    expect(found(search.stateFile(path))).toEqual([]);
    bytes.write(SECRET.slice(8, 15), 4096, 'latin1');
    writeFileSync(path, bytes);
    expect(found(search.stateFile(path))).toHaveLength(1);
    // Once written, the same bytes are not searched again; what grew is.
    expect(search.stateFile(path)).toBe('\n');
    writeFileSync(path, Buffer.concat([bytes, Buffer.from(`.${SECRET.slice(10, 22)}`, 'latin1')]));
    expect(found(search.stateFile(path))).toHaveLength(1);
  });

  it('finds a piece of a text that grew, split by where the last search ended', () => {
    const search = new Unsearched();
    const before = `line one ${SECRET.slice(0, 5)}`;
    expect(found(search.text('log', before))).toEqual([]);
    expect(found(search.text('log', `${before}${SECRET.slice(5, 12)} and more`))).toHaveLength(1);
    // A text that did not only grow is searched whole.
    expect(found(search.text('log', `another ${SECRET}`))).toHaveLength(1);
  });
});
