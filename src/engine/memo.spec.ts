import { describe, expect, it } from 'vitest';
import { ruleMemo } from './memo.js';

describe('a rule’s memo', () => {
  it('makes a value once per key object, and again for another key', () => {
    const memo = ruleMemo();
    let made = 0;
    const make = () => ({ n: ++made });
    const [a, b] = [['NodeID-a'], ['NodeID-a']];
    const first = memo.of(a, make);
    expect(memo.of(a, make)).toBe(first);
    expect(made).toBe(1);
    expect(memo.of(b, make)).toEqual({ n: 2 }); // equal contents, another object: its own value
  });
});
