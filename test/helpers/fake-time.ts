import { vi } from 'vitest';
import { clockAt, unanchorSystemClock, type Clock } from '../../src/base/clock.js';
import { MAX_TIMER_MS } from '../../src/base/timers.js';

// Fake time for a test that runs the App in its process (the daemon fixture, test/helpers/daemon.ts,
// or a test's own App): Date and the timers are faked, and the test pumps them, giving real
// I/O (loopback sockets, SQLite, child processes' pipes) a turn of the event loop between steps.

export interface UntilOptions {
  /** Fake milliseconds to wait at most (default 30 s). */
  within?: number;
  /**
   * Real milliseconds to let pass between steps (default none): for what runs on the real
   * clock inside the daemon, such as a socket's own timeout (libuv's, which no fake timer moves).
   */
  pace?: number;
}

export type Check<T> = () => T | undefined | false | Promise<T | undefined | false>;

export interface FakeTime {
  /** The clock to hand the App (`composeApp(…, { clock, timerClock })`): fake Date.now(). */
  clock: Clock;
  /** The names of the process warnings emitted meanwhile (TimeoutOverflowWarning, …). */
  warnings: string[];
  /** Lets `ms` of fake time pass, real I/O flowing in between. */
  advance(ms: number): Promise<void>;
  /** Pumps fake time until check() is truthy (its value), or fails naming `what`. */
  until<T>(check: Check<T>, what: string, o?: UntilOptions): Promise<T>;
  /** Pumps fake time until the promise settles: its result. */
  settle<T>(p: Promise<T>, what: string, o?: UntilOptions): Promise<T>;
  /** Brings fake time up to the wall clock at least (for what a process on the real clock wrote). */
  catchUp(): Promise<void>;
  /** Real timers again. */
  restore(): void;
}

/** Fake time moves this much at a time; then real I/O gets a turn of the event loop. */
const STEP_MS = 10;
const DEFAULT_WITHIN_MS = 30_000;

// setImmediate, nextTick, queueMicrotask and performance stay real: loopback I/O must flow.
const FAKED = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] as const;

/**
 * Node warns when a timer's delay overflows (and fires it after 1 ms); a fake timer only
 * does the latter. Warn as Node does, so a test still sees it.
 */
function warnOnOverflow(): void {
  const fake = globalThis.setTimeout;
  const checked = (fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    if (ms !== undefined && ms > MAX_TIMER_MS) process.emitWarning(`${ms} does not fit into a 32-bit signed integer.`, 'TimeoutOverflowWarning');
    return fake(fn, ms, ...args);
  };
  globalThis.setTimeout = Object.assign(checked, fake) as typeof setTimeout;
}

// Taken before any test fakes the timers.
const realSetTimeout = globalThis.setTimeout;

/** A turn of the real event loop: sockets read and written, their callbacks run. */
const realTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function step(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  await realTurn();
}

async function pumpUntil<T>(check: Check<T>, what: string, o: UntilOptions = {}): Promise<T> {
  const within = o.within ?? DEFAULT_WITHIN_MS;
  const end = Date.now() + within;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() >= end) throw new Error(`waited ${within} ms of fake time for ${what}`);
    await step(STEP_MS);
    // real wait: a paced step lets a real-clock timeout inside the daemon (a socket's) run out.
    if (o.pace) await new Promise((r) => realSetTimeout(r, o.pace));
  }
}

/** Fakes Date and the timers until restore(); the App the test starts after it runs on them. */
export function useFakeTime(): FakeTime {
  vi.useFakeTimers({ toFake: [...FAKED] });
  // The App's steady clock anchors on the faked Date; and again on the real one after (clock.ts).
  unanchorSystemClock();
  warnOnOverflow();
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(w.name);
  process.on('warning', onWarning);
  const advance = async (ms: number): Promise<void> => {
    const end = Date.now() + ms;
    while (Date.now() < end) await step(Math.min(STEP_MS, end - Date.now()));
  };
  return {
    // Its timers are fake, and so is Date: performance, the host's steady clock, is not.
    clock: clockAt(() => Date.now()),
    warnings,
    advance,
    until: (check, what, o) => pumpUntil(check, what, o),
    async settle(p, what, o) {
      let done = false;
      const watched = p.finally(() => (done = true));
      watched.catch(() => undefined);
      await pumpUntil(() => done, what, o);
      return watched;
    },
    // performance is not faked: its origin plus its now is the wall clock.
    catchUp: () => advance(performance.timeOrigin + performance.now() - Date.now()),
    restore() {
      process.off('warning', onWarning);
      vi.useRealTimers();
      unanchorSystemClock();
    },
  };
}
