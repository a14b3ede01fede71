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
  it('gives back `previous` itself, and no change, when every entity kept its own state', () => {
    const next = new NextStates(previous);
    for (const entity of previous.keys()) next.keep(entity);
    const { states, changed } = next.done();
    expect(states).toBe(previous);
    expect(changed?.size).toBe(0);
  });

  it('tells the changed states apart; every state, the kept ones as they were, when read', () => {
    const next = new NextStates(previous);
    next.keep('A');
    next.set('B', { n: 20 });
    next.keep('C');
    const done = next.done();
    expect([...(done.changed ?? [])]).toEqual([['B', { n: 20 }]]);
    expect(next.get('B')).toEqual({ n: 20 });
    expect(next.get('C')).toBe(c);
    expect(done.states).not.toBe(previous);
    expect([...done.states]).toEqual([
      ['A', a],
      ['B', { n: 20 }],
      ['C', c],
    ]);
    expect(done.states.get('A')).toBe(a);
    expect(previous.get('B')).toBe(b);
  });

  it('an entity left out: the states without it, and no list of changes (every state is looked at)', () => {
    const dropped = new NextStates(previous);
    dropped.keep('A');
    dropped.keep('C');
    const { states, changed } = dropped.done();
    expect(changed).toBeUndefined();
    expect([...states]).toEqual([
      ['A', a],
      ['C', c],
    ]);
    expect(dropped.get('B')).toBeUndefined();
  });

  it('a new entity is a change', () => {
    const added = new NextStates(previous);
    for (const entity of previous.keys()) added.keep(entity);
    added.set('D', { n: 4 });
    const { states, changed } = added.done();
    expect([...(changed ?? [])]).toEqual([['D', { n: 4 }]]);
    expect([...states.keys()]).toEqual(['A', 'B', 'C', 'D']);
  });
});
