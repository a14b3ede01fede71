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

function scheduler(o: { hold?: (rule: string) => boolean; random?: () => number; noSkipHook?: boolean; throwing?: (rule: string) => boolean; slowAbort?: number } = {}) {
  const runs: Run[] = [];
  const skipped: Array<{ rule: string; runningForMs: number }> = [];
  // The daemon's own JSON log lines, as an operator reads them.
  const logs: Array<Record<string, unknown>> = [];
  const s = new Scheduler({
    log: createLogger('info', false, (line) => logs.push(JSON.parse(line) as Record<string, unknown>)).log,
    random: o.random ?? (() => 0),
    clock: systemClock,
    ...(o.noSkipHook ? {} : { onSkip: (r: LoadedRule, runningForMs: number) => skipped.push({ rule: r.name, runningForMs }) }),
    run: (r, signal) => {
      let end = (): void => undefined;
      const done = new Promise<void>((resolve) => (end = resolve));
      runs.push({ rule: r.name, at: Date.now() - START, signal, end });
      if (o.throwing?.(r.name)) throw new Error(`rule ${r.name} broke at once`);
      signal.addEventListener('abort', () => (o.slowAbort ? setTimeout(end, o.slowAbort) : end()));
      if (!o.hold?.(r.name)) end();
      return done;
    },
  });
  return { s, runs, skipped, logs, at: (name: string) => runs.filter((r) => r.rule === name).map((r) => r.at) };
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

describe('Scheduler: what a held, removed or broken rule leaves', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: START });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('spreads the first evaluations over a quarter second', async () => {
    const { s, at } = scheduler({ random: () => 0.5 });
    s.start([rule('a', { everyMs: 60_000 })]);
    await vi.advanceTimersByTimeAsync(124);
    expect(at('a')).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(at('a')).toEqual([125]);
    await stopAll(s);
  });

  it('logs each skipped tick with the rule and how long its evaluation has run', async () => {
    const { s, logs } = scheduler({ hold: () => true });
    s.start([rule('slow', { everyMs: 10_000 })]);
    await vi.advanceTimersByTimeAsync(25_000);
    expect(logs.filter((l) => l.level === 40).map(({ rule: r, runningForMs, msg }) => ({ rule: r, runningForMs, msg }))).toEqual(
      [10_000, 20_000].map((runningForMs) => ({ rule: 'slow', runningForMs, msg: 'previous evaluation still running; skipped this one' })),
    );
    await stopAll(s);
  });

  it('a skip before a whole interval has run (the evaluation was asked between ticks) is logged, not counted as failing', async () => {
    const { s, runs, skipped, logs } = scheduler({ hold: () => true });
    s.start([rule('baseline', { everyMs: 600_000 })]);
    await vi.advanceTimersByTimeAsync(1_000);
    runs[0]?.end();
    await vi.advanceTimersByTimeAsync(119_000);
    expect(s.runNow('baseline')).toBe('started');
    // The regular tick at the next 10 minutes comes 470 s into the on-demand evaluation.
    await vi.advanceTimersByTimeAsync(600_000);
    expect(logs.filter((l) => l.level === 40).map((l) => l.runningForMs)).toEqual([470_000]);
    expect(skipped).toEqual([]);
    await stopAll(s);
  });

  it('a cron rule has no interval: every tick it skips counts as failing', async () => {
    const { s, skipped } = scheduler({ hold: () => true });
    s.start([rule('cron', { cron: '*/30 * * * * *' })]);
    await vi.advanceTimersByTimeAsync(55_000);
    expect(skipped).toEqual([{ rule: 'cron', runningForMs: 30_000 }]);
    await stopAll(s);
  });

  it('without a skip hook, a skipped tick is only logged', async () => {
    const { s, at, logs } = scheduler({ hold: () => true, noSkipHook: true });
    s.start([rule('slow', { everyMs: 10_000 })]);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(at('slow')).toEqual([0]);
    expect(logs.filter((l) => l.level === 40)).toHaveLength(1);
    await stopAll(s);
  });

  it('remove() returns once the rule\'s aborted evaluation has ended, not before', async () => {
    const { s, runs } = scheduler({ hold: () => true, slowAbort: 2_000 });
    s.start([rule('gone', { everyMs: 60_000 })]);
    await vi.advanceTimersByTimeAsync(1);
    let removed = false;
    const removing = s.remove(['gone', 'never-there']).then(() => (removed = true));
    expect(runs[0]?.signal.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(removed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await removing;
    expect(removed).toBe(true);
  });

  it('start() while stop() waits for running evaluations starts nothing', async () => {
    const { s, at } = scheduler({ hold: (name) => name === 'held' });
    s.start([rule('held', { everyMs: 10_000 })]);
    await vi.advanceTimersByTimeAsync(1);
    const stopping = s.stop(5_000);
    s.start([rule('late', { everyMs: 10_000 })]);
    await vi.advanceTimersByTimeAsync(5_000);
    await stopping;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(at('late')).toEqual([]);
  });

  it('a cron rule whose evaluation throws at once is logged as a scheduler error naming it, and runs again at its next time', async () => {
    const { s, at, logs } = scheduler({ throwing: (name) => name === 'broken' });
    s.start([rule('broken', { cron: '*/30 * * * * *' })]);
    await vi.advanceTimersByTimeAsync(55_000);
    expect(at('broken')).toEqual([20_000, 50_000]);
    expect(logs.filter((l) => l.level === 50).map(({ rule: r, error, msg }) => ({ rule: r, error, msg }))).toEqual(
      [1, 2].map(() => ({ rule: 'broken', error: 'Error: rule broken broke at once', msg: 'scheduler error' })),
    );
    await stopAll(s);
  });

  it('an interval rule whose evaluation throws at once is a scheduler error naming it, never a crash, and runs again at its next tick', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const { s, at, logs } = scheduler({ throwing: (name) => name === 'broken' });
      s.start([rule('broken', { everyMs: 30_000 })]);
      await vi.advanceTimersByTimeAsync(65_000);
      expect(at('broken')).toEqual([0, 20_000, 50_000]);
      expect(logs.filter((l) => l.level === 50).map(({ rule: r, error, msg }) => ({ rule: r, error, msg }))).toEqual(
        [1, 2, 3].map(() => ({ rule: 'broken', error: 'Error: rule broken broke at once', msg: 'scheduler error' })),
      );
      expect(rejections).toEqual([]);
      await stopAll(s);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
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
