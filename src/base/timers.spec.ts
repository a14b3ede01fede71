import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, pause, setTimer, sleep, timerDelay } from './timers.js';

const warnings: string[] = [];
const onWarning = (w: Error): void => {
  warnings.push(w.name);
};

/** Lets a warning Node emitted (on the next tick) arrive, and a 1 ms timer fire. */
// real wait: the real timers are what is tested (Node's overflow warning comes on a later tick).
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 15));

describe('timers', () => {
  afterEach(() => {
    process.off('warning', onWarning);
    warnings.length = 0;
  });

  it('clamps a delay to what setTimeout can hold', () => {
    expect(MAX_TIMER_MS).toBe(2_147_483_647);
    expect(timerDelay(3_000_000_000)).toBe(MAX_TIMER_MS);
    expect(timerDelay(Infinity)).toBe(MAX_TIMER_MS);
    expect(timerDelay(1_500)).toBe(1_500);
    expect(timerDelay(-5)).toBe(0);
    expect(timerDelay(Number.NaN)).toBe(0);
  });

  it('a wait of 3,000,000 s neither warns nor fires early', async () => {
    process.on('warning', onWarning);
    let fired = 0;
    const timer = setTimer(() => fired++, 3_000_000_000);
    const abort = new AbortController();
    // real wait: none in fact: the sleep under test, aborted before it ends.
    const slept = sleep(3_000_000_000, abort.signal).catch((err: Error) => err.name);
    const paused = pause(3_000_000_000, abort.signal).then(() => 'paused');
    await settle();
    expect(fired).toBe(0);
    expect(warnings).toEqual([]);
    clearTimeout(timer);
    abort.abort();
    expect(await slept).toBe('AbortError');
    expect(await paused).toBe('paused');
  });
});

describe('every timer of delivery, the API client, the rules and the scheduler goes through the helper', () => {
  it('no file there calls setTimeout, setInterval or node:timers/promises itself', () => {
    // The rest of src/ keeps short fixed delays (shutdown, the demo); the expression process's watchdog is its own.
    const skip = new Set(['src/rules/endpoint/sandbox.ts']);
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) return files(path);
        return path.endsWith('.ts') && !path.endsWith('.spec.ts') && !skip.has(path) ? [path] : [];
      });
    const scope = [...files('src/api'), ...files('src/channels'), ...files('src/delivery'), ...files('src/alerts'), ...files('src/rules'), 'src/engine/scheduler.ts', 'src/base/abort.ts', 'src/base/retry.ts'];
    const raw = scope.filter((f) => /\bset(Timeout|Interval)\(|node:timers/.test(readFileSync(f, 'utf8')));
    expect(raw).toEqual([]);
  });
});
