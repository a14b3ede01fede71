import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

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

/** How long a piece of a secret must be to count as leaked (a redaction that keeps a prefix leaks). */
export const FRAGMENT = 12;
/** The public parts of the providers' secret URLs (their paths' first segments): no leak by themselves. */
const PUBLIC = ['/services/', '/api/webhooks/', '/hooks/'];
/** Every piece of a secret holds one of its anchors (its pieces of half the length at multiples of it): the texts are searched for those. */
const ANCHOR = FRAGMENT / 2;

interface Search {
  anchors: RegExp;
  /** Anchor → each form of a secret it is in, and where. */
  at: Map<string, Array<{ secret: string; form: string; offset: number }>>;
}
const searches = new Map<string, Search>();

/** One regular expression of every secret's anchors (one pass over each text, not one per piece: the state file is megabytes). */
function searchOf(secrets: readonly string[]): Search {
  const id = secrets.join('\u0000');
  const known = searches.get(id);
  if (known) return known;
  const at: Search['at'] = new Map();
  const add = (anchor: string, secret: string, form: string, offset: number) => at.set(anchor, [...(at.get(anchor) ?? []), { secret, form, offset }]);
  for (const secret of secrets) {
    for (const form of new Set([secret, encodeURIComponent(secret)])) {
      if (form.length < FRAGMENT) add(form, secret, form, 0);
      // Whole anchors only: a piece starting at i holds the one at the next multiple of ANCHOR (≤ i + ANCHOR − 1).
      else for (let offset = 0; offset + ANCHOR <= form.length; offset += ANCHOR) add(form.slice(offset, offset + ANCHOR), secret, form, offset);
    }
  }
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const search = { anchors: new RegExp([...at.keys()].map(escape).join('|'), 'g'), at };
  searches.set(id, search);
  return search;
}

/** The piece of `form` that holds its anchor at `offset` and stands in `text` around `pos` (where the anchor is), if any. */
function pieceAt(text: string, pos: number, form: string, offset: number): string | undefined {
  if (form.length < FRAGMENT) return form;
  for (let start = Math.max(0, offset - ANCHOR + 1); start <= offset && start + FRAGMENT <= form.length; start++) {
    const piece = form.slice(start, start + FRAGMENT);
    if (!PUBLIC.some((p) => p.includes(piece)) && text.startsWith(piece, pos - (offset - start))) return piece;
  }
  return undefined;
}

/** Where a secret, or any FRAGMENT-character piece of it (or of its URL-encoded form), appears: `source: first 12 characters…`. */
export function leaks(sources: Record<string, string>, secrets: readonly string[]): string[] {
  if (secrets.length === 0) return [];
  const found = new Set<string>();
  const { anchors, at } = searchOf(secrets);
  for (const [name, text] of Object.entries(sources)) {
    const seen = new Set<string>();
    anchors.lastIndex = 0;
    for (let m = anchors.exec(text); m !== null; m = anchors.exec(text)) {
      // Anchors may overlap: the next search starts one character on, not past this match.
      anchors.lastIndex = m.index + 1;
      for (const { secret, form, offset } of at.get(m[0]) ?? []) {
        const piece = seen.has(secret) ? undefined : pieceAt(text, m.index, form, offset);
        if (piece === undefined) continue;
        seen.add(secret);
        found.add(`${name}: ${secret.slice(0, 12)}… (its piece "${piece}")`);
      }
    }
  }
  return [...found];
}

/** A file is compared with its last reading in pieces of this many bytes (SQLite's page). */
const PIECE = 4096;

/**
 * What changed in a source since it was last searched, with FRAGMENT − 1 characters either
 * side: a piece of a secret wholly in what did not change stood there, at the same place (or,
 * in a text that only grew, before its end), when the last search found none. So searching
 * this is searching it all, and a state file of megabytes is not read whole after every step.
 * One per daemon.
 */
export class Unsearched {
  readonly #texts = new Map<string, string>();
  /** Each file's last reading and a buffer for the next, swapped at each read (a fresh buffer of megabytes per read costs more than reading it). */
  readonly #files = new Map<string, { last: Reading | undefined; spare: Buffer }>();

  /** A text that grows at its end (a log, the messages a provider got): what it gained. */
  text(name: string, text: string): string {
    const last = this.#texts.get(name);
    this.#texts.set(name, text);
    if (last === undefined || !text.startsWith(last)) return text;
    return text.slice(Math.max(0, last.length - (FRAGMENT - 1)));
  }

  /** The state file as it is on disk (database and write-ahead log, each rewritten in place): what changed, as text. */
  stateFile(path: string): string {
    return [path, `${path}-wal`].map((p) => this.#file(p)).join('\n');
  }

  #file(path: string): string {
    let file = this.#files.get(path);
    if (!file) this.#files.set(path, (file = { last: undefined, spare: Buffer.alloc(0) }));
    const now = readInto(path, file.spare);
    const { last } = file;
    file.spare = last?.bytes ?? Buffer.alloc(0);
    file.last = now;
    const bytes = now.bytes.subarray(0, now.length);
    if (last === undefined) return bytes.toString('latin1');
    const spans: Array<[number, number]> = [];
    for (let at = 0; at < bytes.length; at += PIECE) {
      const end = Math.min(at + PIECE, bytes.length);
      if (end <= last.length && bytes.subarray(at, end).equals(last.bytes.subarray(at, end))) continue;
      const from = Math.max(0, at - (FRAGMENT - 1));
      const to = Math.min(bytes.length, end + FRAGMENT - 1);
      const prev = spans.at(-1);
      if (prev && from <= prev[1]) prev[1] = to;
      else spans.push([from, to]);
    }
    return spans.map(([from, to]) => bytes.toString('latin1', from, to)).join('\n');
  }
}

/** A file's bytes: the first `length` of `bytes`. */
interface Reading {
  bytes: Buffer;
  length: number;
}

/** The file as it is now, read into `into` (or a larger buffer); a missing file reads as nothing. */
function readInto(path: string, into: Buffer): Reading {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { bytes: into, length: 0 };
  }
  try {
    const size = fstatSync(fd).size;
    const bytes = into.length >= size ? into : Buffer.allocUnsafe(size + (size >> 1));
    let length = 0;
    while (length < size) {
      const n = readSync(fd, bytes, length, size - length, length);
      if (n === 0) break;
      length += n;
    }
    return { bytes, length };
  } finally {
    closeSync(fd);
  }
}
