import { describe, expect, it } from 'vitest';
import { NextStates } from './next-states.js';

const a = { n: 1 };
const b = { n: 2 };
const c = { n: 3 };
const previous: ReadonlyMap<string, { n: number }> = new Map([
  ['A', a],
  ['B', b],
  ['C', c],
]);

describe('NextStates', () => {
  it('gives back `previous` itself when every entity kept its own state', () => {
    const next = new NextStates(previous);
    for (const [entity, state] of previous) next.keep(entity, state);
    expect(next.done()).toBe(previous);
  });

  it('builds a new Map from the first change, with the states kept before it', () => {
    const next = new NextStates(previous);
    next.keep('A', a);
    next.set('B', { n: 20 });
    next.keep('C', c);
    const done = next.done();
    expect(done).not.toBe(previous);
    expect([...done]).toEqual([
      ['A', a],
      ['B', { n: 20 }],
      ['C', c],
    ]);
    expect(previous.get('B')).toBe(b);
  });

  it('drops the entities left out, and takes new ones', () => {
    const dropped = new NextStates(previous);
    dropped.keep('A', a);
    dropped.keep('C', c);
    expect([...dropped.done()]).toEqual([
      ['A', a],
      ['C', c],
    ]);
    const added = new NextStates(previous);
    for (const [entity, state] of previous) added.keep(entity, state);
    added.set('D', { n: 4 });
    expect([...added.done().keys()]).toEqual(['A', 'B', 'C', 'D']);
  });
});
