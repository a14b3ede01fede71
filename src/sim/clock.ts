import type { Clock } from '../base/clock.js';

/**
 * The simulated clock: `speed` simulated seconds per real second from `startMs`, plus
 * whatever advance() added. Speed 0 stands still: only advance() moves it (tests). A clock
 * made `held` stands at `startMs` until run() (the demo: its world waits for the first polls).
 */
export class SimClock {
  #offsetMs = 0;
  #realStart: number | undefined;

  constructor(
    readonly startMs: number,
    readonly speed: number,
    held = false,
  ) {
    this.#realStart = held ? undefined : Date.now();
  }

  nowMs(): number {
    const ran = this.#realStart === undefined ? 0 : Date.now() - this.#realStart;
    return this.startMs + this.#offsetMs + this.speed * ran;
  }

  /** A held clock starts running at its speed from now; a running one carries on. */
  run(): void {
    this.#realStart ??= Date.now();
  }

  /** Unix seconds, as the service writes timestamps. */
  now(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  /** This clock as the App's Clock, in unix ms (its own now() is seconds: not one to pass). */
  asClock(): Clock {
    return { now: () => this.nowMs() };
  }

  advance(ms: number): void {
    if (ms < 0) throw new Error('the simulated clock only moves forward');
    this.#offsetMs += ms;
  }
}
