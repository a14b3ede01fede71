import { describe, expect, it } from 'vitest';
import { ClockSteps } from './clock-steps.js';

describe('ClockSteps', () => {
  it('tells a step of the wall clock over a minute once, with its size and direction; drift and small steps are not told', () => {
    let wall = Date.UTC(2026, 0, 1);
    let steady = 0;
    const told: string[] = [];
    const steps = new ClockSteps({ now: () => wall, mono: () => steady }, ({ text }) => told.push(text));
    wall += 59_000; // a slow read, or NTP slewing
    steps.check();
    wall -= 3_600_000;
    steady += 1_000;
    steps.check();
    steps.check();
    wall += 26 * 3_600_000;
    steps.check();
    expect(told).toEqual([
      "the host's wall clock stepped back by 59m2s: ages, waits and for: keep counting on the steady clock; times shown are the wall's",
      "the host's wall clock stepped forward by 1d2h: ages, waits and for: keep counting on the steady clock; times shown are the wall's",
    ]);
  });
});
