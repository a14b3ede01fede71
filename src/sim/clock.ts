import type { Clock } from '../base/clock.js';

/**
 * The simulated clock: `speed` simulated seconds per real second from `startMs`, plus
 * whatever advance() added. Speed 0 stands still: only advance() moves it (tests).
 */
export class SimClock {
  #offsetMs = 0;
  readonly #realStart = Date.now();

  constructor(
    readonly startMs: number,
    readonly speed: number,
  ) {}

  nowMs(): number {
    return this.startMs + this.#offsetMs + this.speed * (Date.now() - this.#realStart);
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
