import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LoadedRule } from '../config/load.js';
import { createLogger } from '../base/log.js';
import type { Schedule } from '../base/schedule.js';
import { Scheduler } from './scheduler.js';
import { systemClock } from '../base/clock.js';

// The scheduler on fake timers: Date and setTimeout both move only when the test says.
const START = new Date(2026, 10, 26, 12, 0, 10).getTime(); // 10 s past a minute, local time

const rule = (name: string, schedule: Schedule) => ({ name, kind: 'validator-status', severity: 'warning', schedule, spec: {} }) as unknown as LoadedRule;

interface Run {
  rule: string;
  at: number;
  signal: AbortSignal;
  end: () => void;
}

function scheduler(o: { hold?: (rule: string) => boolean } = {}) {
  const runs: Run[] = [];
  const skipped: Array<{ rule: string; runningForMs: number }> = [];
  const s = new Scheduler({
    log: createLogger('silent', false).log,
    random: () => 0,
    clock: systemClock,
    onSkip: (r, runningForMs) => skipped.push({ rule: r.name, runningForMs }),
    run: (r, signal) =>
      new Promise<void>((resolve) => {
        const run = { rule: r.name, at: Date.now() - START, signal, end: resolve };
        runs.push(run);
        signal.addEventListener('abort', () => resolve());
        if (!o.hold?.(r.name)) resolve();
      }),
  });
  return { s, runs, skipped, at: (name: string) => runs.filter((r) => r.rule === name).map((r) => r.at) };
}

/** stop() with its grace run out on the fake clock. */
async function stopAll(s: Scheduler): Promise<void> {
  const stopping = s.stop(1_000);
  await vi.advanceTimersByTimeAsync(1_000);
  await stopping;
}

describe('Scheduler', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: START });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs an interval rule at start, then on the clock\'s multiples of its interval; rules of one interval together', async () => {
    const { s, at } = scheduler();
    s.start([rule('a', { everyMs: 60_000 }), rule('b', { everyMs: 60_000 }), rule('fast', { everyMs: 20_000 }), rule('q', { everyMs: 15_000 })]);
    await vi.advanceTimersByTimeAsync(170_000);
    // Started 10 s past a minute: then each minute.
    expect(at('a')).toEqual([0, 50_000, 110_000, 170_000]);
    expect(at('b')).toEqual(at('a'));
    expect(at('fast')).toEqual([0, 10_000, 30_000, 50_000, 70_000, 90_000, 110_000, 130_000, 150_000, 170_000]);
    // 15 s: the multiple 5 s after the start is under half an interval away, so not that one.
    expect(at('q')).toEqual([0, ...Array.from({ length: 11 }, (_, i) => 20_000 + i * 15_000)]);
    await stopAll(s);
  });

  it('runs a cron rule at its times only', async () => {
    const { s, at } = scheduler();
    s.start([rule('cron', { cron: '*/30 * * * * *' })]);
    await vi.advanceTimersByTimeAsync(95_000);
    expect(at('cron')).toEqual([20_000, 50_000, 80_000]);
    await stopAll(s);
  });

  it('skips a tick while the last evaluation still runs, and reports one held past its interval', async () => {
    const { s, runs, skipped, at } = scheduler({ hold: () => true });
    s.start([rule('slow', { everyMs: 10_000 })]);
    await vi.advanceTimersByTimeAsync(35_000);
    expect(at('slow')).toEqual([0]); // +10, +20 and +30 s skipped: the first run never ended
    expect(skipped).toEqual([10_000, 20_000, 30_000].map((runningForMs) => ({ rule: 'slow', runningForMs })));
    runs[0]?.end();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(at('slow')).toEqual([0, 40_000]);
    await stopAll(s);
  });

  it('remove() aborts the rule\'s running evaluation and schedules it no more; the others go on', async () => {
    const { s, runs, at } = scheduler({ hold: (name) => name === 'gone' });
    s.start([rule('gone', { everyMs: 10_000 }), rule('kept', { everyMs: 10_000 })]);
    await vi.advanceTimersByTimeAsync(1);
    await s.remove(['gone']);
    expect(runs.find((r) => r.rule === 'gone')?.signal.aborted).toBe(true);
    expect(runs.find((r) => r.rule === 'kept')?.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(at('gone')).toEqual([0]);
    expect(at('kept')).toEqual([0, 10_000, 20_000, 30_000]);
    await stopAll(s);
  });

  it('stop() waits for a running evaluation for its grace, then aborts it; nothing starts after', async () => {
    const { s, runs, at } = scheduler({ hold: () => true });
    s.start([rule('held', { everyMs: 10_000 })]);
    await vi.advanceTimersByTimeAsync(1);
    let stopped = false;
    const stopping = s.stop(5_000).then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(stopped).toBe(false);
    expect(runs[0]?.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await stopping;
    expect(runs[0]?.signal.aborted).toBe(true);
    s.start([rule('late', { everyMs: 10_000 })]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(at('held')).toEqual([0]);
    expect(at('late')).toEqual([]);
  });
});

describe('Scheduler.runNow', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: START });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('evaluates a rule between its ticks, never beside a running evaluation, and leaves its ticks where they are', async () => {
    let hold = false;
    const { s, at, runs, skipped } = scheduler({ hold: () => hold });
    s.start([rule('baseline', { everyMs: 600_000 })]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(at('baseline')).toEqual([0]);
    await vi.advanceTimersByTimeAsync(120_000);
    hold = true;
    expect(s.runNow('baseline')).toBe('started');
    expect(at('baseline')).toEqual([0, 121_000]);
    // The on-demand sweep still runs: asked again, that one answers; no skip is counted.
    expect(s.runNow('baseline')).toBe('running');
    expect(at('baseline')).toEqual([0, 121_000]);
    expect(skipped).toEqual([]);
    runs.at(-1)?.end();
    hold = false;
    await vi.advanceTimersByTimeAsync(600_000);
    // The next regular tick is the clock's multiple of 10 m, as before.
    expect(at('baseline').slice(2).map((t) => (t + START) % 600_000)).toEqual([0]);
    expect(s.runNow('nobody')).toBe('unknown');
    await stopAll(s);
    expect(s.runNow('baseline')).toBe('unknown');
  });
});
