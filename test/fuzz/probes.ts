import { readFileSync, existsSync } from 'node:fs';

// What the fuzzer watches besides the daemon's answers: how long the event loop was blocked,
// every timer asked for, and where a secret could surface.

/** setTimeout's ceiling: a longer delay fires at once, every time (TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface Timers {
  /** Delays over the ceiling asked for since the start, with where. */
  overflows: Array<{ ms: number; stack: string }>;
  warnings: number;
  restore(): void;
}

/** Records every timer's delay (the daemon runs in this process). */
export function watchTimers(): Timers {
  const overflows: Timers['overflows'] = [];
  const original = { setTimeout: globalThis.setTimeout, setInterval: globalThis.setInterval };
  let warnings = 0;
  const onWarning = (w: Error) => {
    if (w.name === 'TimeoutOverflowWarning') warnings++;
  };
  process.on('warning', onWarning);
  const wrap = <F extends (...a: never[]) => unknown>(fn: F): F =>
    function (this: unknown, ...args: unknown[]) {
      const ms = Number(args[1] ?? 0);
      if (ms > MAX_TIMER_MS && overflows.length < 20) overflows.push({ ms, stack: new Error().stack?.split('\n').slice(2, 6).join('\n') ?? '' });
      return (fn as unknown as (...a: unknown[]) => unknown).apply(this, args);
    } as unknown as F;
  globalThis.setTimeout = Object.assign(wrap(original.setTimeout), original.setTimeout);
  globalThis.setInterval = Object.assign(wrap(original.setInterval), original.setInterval);
  return {
    overflows,
    get warnings() {
      return warnings;
    },
    restore() {
      globalThis.setTimeout = original.setTimeout;
      globalThis.setInterval = original.setInterval;
      process.off('warning', onWarning);
    },
  };
}

export interface LoopWatch {
  /** The longest the event loop was blocked since the last reset (ms). */
  maxBlockedMs(): number;
  reset(): void;
  stop(): void;
}

/** How often the CPU-aware watch samples (ms). */
const TICK_MS = 20;

/**
 * The longest the event loop was blocked *by this process's own work*. A late tick counts only
 * as far as the process spent CPU meanwhile: a tick made late because other processes had the
 * cores (a loaded CI machine running test files in parallel) is starvation, not a block, and
 * made the 1 s check fail on busy cores. A synchronous read of 1.2 s still counts 1.2 s.
 */
export function watchLoop(): LoopWatch {
  let max = 0;
  let last = performance.now();
  let cpu = process.cpuUsage();
  const timer = setInterval(() => {
    const now = performance.now();
    const used = process.cpuUsage(cpu);
    const late = now - last - TICK_MS;
    max = Math.max(max, Math.min(late, (used.user + used.system) / 1000));
    last = now;
    cpu = process.cpuUsage();
  }, TICK_MS);
  timer.unref();
  return {
    maxBlockedMs: () => max,
    reset: () => {
      max = 0;
    },
    stop: () => clearInterval(timer),
  };
}

/** Where each secret was found: `source: secret…`. */
/** How long a piece of a secret must be to count as leaked (a redaction that keeps a prefix leaks). */
export const FRAGMENT = 12;
/** The public parts of the providers' secret URLs (their paths' first segments): no leak by themselves. */
const PUBLIC = ['/services/', '/api/webhooks/', '/hooks/'];

/** Every FRAGMENT-character piece of the secret, and of its URL-encoded form, but those inside a public part. */
export function fragmentsOf(secret: string): string[] {
  const known = fragments.get(secret);
  if (known) return known;
  const out = new Set<string>();
  for (const form of new Set([secret, encodeURIComponent(secret)])) {
    if (form.length <= FRAGMENT) out.add(form);
    for (let i = 0; i + FRAGMENT <= form.length; i++) {
      const piece = form.slice(i, i + FRAGMENT);
      if (!PUBLIC.some((p) => p.includes(piece))) out.add(piece);
    }
  }
  fragments.set(secret, [...out]);
  return [...out];
}
const fragments = new Map<string, string[]>();

/** Where a secret, or any FRAGMENT-character piece of it, appears: `source: first 12 characters…`. */
export function leaks(sources: Record<string, string>, secrets: readonly string[]): string[] {
  const found: string[] = [];
  for (const [name, text] of Object.entries(sources)) {
    for (const s of secrets) {
      const piece = fragmentsOf(s).find((f) => text.includes(f));
      if (piece !== undefined) found.push(`${name}: ${s.slice(0, 12)}… (its piece "${piece}")`);
    }
  }
  return [...new Set(found)];
}

/** The state file as it is on disk (database and write-ahead log), as text to search. */
export function stateFileText(path: string): string {
  return [path, `${path}-wal`].filter(existsSync).map((p) => readFileSync(p).toString('latin1')).join('\n');
}
