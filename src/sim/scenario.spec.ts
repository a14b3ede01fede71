import { describe, expect, it } from 'vitest';
import { SimClock } from './clock.js';
import { applyChange, scenarioSchema, Timeline, worldChange } from './scenario.js';
import { World } from './world.js';

const NOW_MS = Date.parse('2026-03-02T12:30:00Z');
const NOW = NOW_MS / 1000;
const HOUR = 3600;

describe('scenario metrics', () => {
  it('set a series from now on, or from `from` on: the complete points since then are rewritten', () => {
    const world = new World(new SimClock(NOW_MS, 0));
    applyChange(world, worldChange.parse({ metrics: [{ chainId: 43114, metric: 'txCount', timeInterval: 'hour', value: 12000 }] }), NOW_MS);
    applyChange(world, worldChange.parse({ metrics: [{ chainId: 43114, metric: 'txCount', timeInterval: 'hour', value: 640, from: '-2h' }] }), NOW_MS);
    const points = world.metricPoints('43114', 'txCount', 'hour', NOW - 3 * HOUR, NOW);
    expect(points.map((p) => [new Date(p.timestamp * 1000).toISOString().slice(11, 16), p.value])).toEqual([
      ['12:00', 320], // the running hour, half of it gone
      ['11:00', 640],
      ['10:00', 640],
      ['09:00', 12000],
    ]);
  });
});

describe('scenario events', () => {
  it('carry an optional `say` the simulator ignores: an event of words alone changes nothing', () => {
    const scenario = scenarioSchema.parse({
      speed: 0,
      events: [
        { at: '+10s', say: 'A ends within 30 s' },
        { at: '+20s', say: 'unknown nodes get an empty list', unknownNode: 'empty' },
      ],
    });
    expect(scenario.events.map((e) => [e.at.ms, e.say])).toEqual([
      [10_000, 'A ends within 30 s'],
      [20_000, 'unknown nodes get an empty list'],
    ]);
    const world = new World(new SimClock(NOW_MS, 0));
    const timeline = new Timeline(scenario, NOW_MS);
    world.clock.advance(10_000);
    expect(timeline.applyDue(world)).toBe(1);
    expect(world.unknownNode).toBe('not-found');
    world.clock.advance(10_000);
    expect(timeline.applyDue(world)).toBe(1);
    expect(world.unknownNode).toBe('empty');
  });

  it('a `say` is only for a scenario\'s events, not for its world', () => {
    expect(scenarioSchema.safeParse({ world: { say: 'hello' } }).success).toBe(false);
  });
});
