import { scaledClock, type Clock } from '../base/clock.js';

/**
 * The simulated clock: `speed` simulated seconds per real second from `startMs`, plus
 * whatever advance() added. Speed 0 stands still: only advance() moves it (tests). A clock
 * made `held` stands at `startMs` until run() (the demo: its world waits for the first polls).
 */
export class SimClock {
  #offsetMs = 0;
  /** How far the daemon's wall clock is off the world's (stepWall): the service never sees it. */
  #wallStepMs = 0;
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

  /**
   * This clock as the App's Clock, in unix ms (its own now() is seconds: not one to pass): its
   * steady reading is the world's time, its wall that plus every stepWall(); its timers run at
   * the world's speed (advance() fires none: speed 0 waits on the host's time).
   */
  asClock(): Clock {
    return scaledClock({ now: () => this.nowMs() + this.#wallStepMs, mono: () => this.nowMs() }, this.speed);
  }

  /** Steps the daemon's wall clock (an NTP correction, a VM restored): its steady clock and the world go on. */
  stepWall(ms: number): void {
    this.#wallStepMs += ms;
  }

  advance(ms: number): void {
    if (ms < 0) throw new Error('the simulated clock only moves forward');
    this.#offsetMs += ms;
  }
}
