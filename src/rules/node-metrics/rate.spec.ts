import { describe, expect, it } from 'vitest';
import { advanceCounter, rateOf, type Counter } from './rate.js';

// A counter's per-second rate over a window, as Prometheus' rate() reads one: resets count as
// increase, nothing until the window is covered, and a long window bounded without losing increase.

/** The counter after reads at each [seconds, raw value], over a window of `windowS`. */
function reads(points: Array<[number, number]>, windowS: number): Counter {
  let c: Counter | undefined;
  for (const [t, raw] of points) c = advanceCounter(c, t, raw, windowS);
  return c as Counter;
}

describe('a counter over a window', () => {
  it('its first read is the anchor; a read at the same instant (or earlier) changes nothing', () => {
    const first = advanceCounter(undefined, 100, 7, 60);
    expect(first).toEqual({ points: [[100, 7]], raw: 7 });
    expect(advanceCounter(first, 100, 9, 60)).toBe(first);
    expect(advanceCounter(first, 90, 9, 60)).toBe(first);
    expect(advanceCounter({ points: [], raw: 3 }, 100, 9, 60)).toEqual({ points: [[100, 9]], raw: 9 });
  });

  it('a value under the last is a restart from 0: all of it is increase; the same value is none', () => {
    expect(reads([[0, 100], [60, 160], [120, 10], [180, 10]], 600)).toEqual({ points: [[0, 100], [60, 160], [120, 170], [180, 170]], raw: 10 });
  });

  it('keeps the points within the window and the newest one at or before its start', () => {
    expect(reads([[0, 0], [60, 1], [120, 2], [180, 3]], 120).points).toEqual([[60, 1], [120, 2], [180, 3]]);
    expect(reads([[0, 0], [60, 1], [120, 2], [181, 3]], 120).points).toEqual([[60, 1], [120, 2], [181, 3]]);
    expect(reads([[0, 0], [60, 1], [120, 2], [179, 3]], 120).points).toEqual([[0, 0], [60, 1], [120, 2], [179, 3]]);
  });

  it('past 240 points, every other inner one is dropped: the anchor, the newest and the increase stay', () => {
    const at240 = reads(Array.from({ length: 240 }, (_, i) => [i, i * 2] as [number, number]), 10_000);
    expect(at240.points).toHaveLength(240);
    const at241 = reads(Array.from({ length: 241 }, (_, i) => [i, i * 2] as [number, number]), 10_000);
    expect(at241.points).toHaveLength(121);
    expect([at241.points[0], at241.points[1], at241.points.at(-1)]).toEqual([[0, 0], [2, 4], [240, 480]]);
    expect(rateOf(at241, 240, 200)).toBe(2);
    // A stored state of more points (read back from an older build): thinned at its next read, the newest kept.
    const stored: Counter = { points: Array.from({ length: 241 }, (_, i) => [i, i] as [number, number]), raw: 240 };
    const even = advanceCounter(stored, 241, 241, 10_000);
    expect(even.points).toHaveLength(122);
    expect([even.points[0], even.points.at(-1)]).toEqual([[0, 0], [241, 241]]);
    const odd = reads(Array.from({ length: 242 }, (_, i) => [i, i] as [number, number]), 10_000);
    expect(odd.points.at(-1)).toEqual([241, 241]);
    expect(odd.points[0]).toEqual([0, 0]);
  });
});

describe('the rate', () => {
  it('per second from the anchor to the newest point, once the points reach back to the window\'s start', () => {
    const c = reads([[0, 0], [60, 30], [120, 90]], 120);
    expect(rateOf(c, 120, 120)).toBe(0.75);
    expect(rateOf(c, 120, 121)).toBeUndefined();
    expect(rateOf(c, 119, 119)).toBe(0.75);
  });

  it('none from one point, or from points at one instant', () => {
    expect(rateOf({ points: [[0, 5]], raw: 5 }, 0, 0)).toBeUndefined();
    expect(rateOf({ points: [[0, 5]], raw: 5 }, 100, 10)).toBeUndefined();
    expect(rateOf({ points: [], raw: 5 }, 100, 10)).toBeUndefined();
    expect(rateOf({ points: [[10, 5], [10, 9]], raw: 9 }, 100, 10)).toBeUndefined();
  });
});
