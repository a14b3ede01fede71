import type { Readings } from './clock.js';
import { formatDuration } from './duration.js';

/** Smaller moves are NTP slewing or a slow read, not worth a line. */
export const STEP_MS = 60_000;

/**
 * Notices a step of the wall clock: the wall moved that much more (or less) than the steady
 * clock since the last look. No age or wait counts on the wall, so this only tells: once per step,
 * with its size and direction (the offset after a step is the new normal).
 */
export class ClockSteps {
  #offset: number;

  constructor(
    private readonly clock: Readings,
    private readonly onStep: (step: { ms: number; text: string }) => void,
  ) {
    this.#offset = clock.now() - clock.mono();
  }

  check(): void {
    const offset = this.clock.now() - this.clock.mono();
    const ms = offset - this.#offset;
    if (Math.abs(ms) <= STEP_MS) return;
    this.#offset = offset;
    const text = `the host's wall clock stepped ${ms < 0 ? 'back' : 'forward'} by ${formatDuration(Math.round(Math.abs(ms) / 1000) * 1000)}: ages, waits and for: keep counting on the steady clock; times shown are the wall's`;
    this.onStep({ ms, text });
  }
}
