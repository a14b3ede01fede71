import { fork, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatDuration } from '../../base/duration.js';
import { systemClock, type Clock } from '../../base/clock.js';
import type { Cancel } from '../../base/timers.js';
import type { ListRequest, ListResult, TextsRequest, TextsResult } from './read.js';
import type { Reply, Request } from './sandbox.js';

// The daemon's side of the expression process (sandbox.ts). A child process, not a worker
// thread: a worker shares the daemon's process, and V8 aborts the whole process when one
// allocation overshoots a worker's heap limit (a 300 MB string from `$pad`, measured on
// Node 20) or an array outgrows its maximum size. One process, one request at a time: a
// request stopped for its deadline takes no other rule's work down with it.

/** The expression process's heap: an expression that needs more ends that process, not the daemon. */
export const EXPRESSION_HEAP_MB = 256;
/** An expression process idle this long is ended (its memory returned); the next request starts another. */
const IDLE_MS = 60_000;
/** Starting is not the rule's time: it has a cap of its own (a loaded host, or sources compiled as they load). */
const START_MS = 30_000;
/** What is kept of the process's stderr to say why it died; never logged as such. */
const STDERR_TAIL_CHARS = 4_000;

/** What one rule evaluation may spend in the expression process, over all its requests. */
export interface Budget {
  readonly limitMs: number;
  leftMs: number;
}

export function budget(limitMs: number): Budget {
  return { limitMs, leftMs: limitMs };
}

export interface RunnerOptions {
  /** The process's script; by default sandbox.js (or .ts, running from sources) beside this file. */
  entry?: URL;
  heapMb?: number;
  idleMs?: number;
  /**
   * The host's by default, whatever the App's runs at: an expression's budget is the time the
   * process really computes, not the world's (the demo's runs faster).
   */
  clock?: Clock;
}

interface Job {
  request: ListRequest | TextsRequest;
  budget: Budget;
  signal: AbortSignal;
  resolve: (result: unknown) => void;
  reject: (err: unknown) => void;
  onAbort: () => void;
}

interface Running {
  job: Job;
  id: number;
  child: ChildProcess;
  started: number;
  timer: Cancel;
}

export class ExpressionRunner {
  readonly #entry: string;
  readonly #heapMb: number;
  readonly #idleMs: number;
  readonly #clock: Clock;
  #child: ChildProcess | undefined;
  /** The process has loaded; until then the first request waits (START_MS at most). */
  #ready = false;
  #starting: Cancel | undefined;
  #queue: Job[] = [];
  #running: Running | undefined;
  #idle: Cancel | undefined;
  #nextId = 1;

  constructor(o: RunnerOptions = {}) {
    this.#entry = fileURLToPath(o.entry ?? new URL(`./sandbox${extname(import.meta.url)}`, import.meta.url));
    this.#heapMb = o.heapMb ?? EXPRESSION_HEAP_MB;
    this.#idleMs = o.idleMs ?? IDLE_MS;
    this.#clock = o.clock ?? systemClock;
  }

  run(request: ListRequest, budget: Budget, signal: AbortSignal): Promise<ListResult>;
  run(request: TextsRequest, budget: Budget, signal: AbortSignal): Promise<TextsResult>;
  /** Queued behind the requests before it; its deadline runs from when it is sent. */
  run(request: ListRequest | TextsRequest, budget: Budget, signal: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const job: Job = { request, budget, signal, resolve, reject, onAbort: () => this.#abort(job) };
      signal.addEventListener('abort', job.onAbort, { once: true });
      this.#queue.push(job);
      this.#next();
    });
  }

  /** Ends the process now: the request it holds fails; one still queued starts another. */
  stop(): void {
    this.#kill();
    const r = this.#running;
    if (r) this.#settle(r, new Error('the expression process was stopped'));
  }

  #next(): void {
    if (this.#running) return;
    const job = this.#queue[0];
    if (!job) return this.#idleSoon();
    this.#idle?.();
    if (job.budget.leftMs <= 0) return this.#failFirst(new Error(overrunText(job.budget)));
    let child: ChildProcess;
    try {
      child = this.#start();
    } catch (err) {
      return this.#failFirst(new Error(`the expression process could not start: ${(err as Error).message}`));
    }
    refAll(child, true);
    if (!this.#ready) return; // `ready` calls again
    this.#queue.shift();
    const id = this.#nextId++;
    try {
      child.send({ id, request: job.request } satisfies Request);
    } catch (err) {
      this.#kill();
      this.#done(job, new Error(`the expression process could not take the request: ${(err as Error).message}`));
      return this.#next();
    }
    const timer = this.#clock.setTimer(() => this.#overrun(), job.budget.leftMs);
    this.#running = { job, id, child, started: this.#clock.mono(), timer };
  }

  #failFirst(error: Error): void {
    const job = this.#queue.shift();
    if (job) this.#done(job, error);
    this.#next();
  }

  #start(): ChildProcess {
    if (this.#child) return this.#child;
    // The daemon's own flags go along (a loader, say), not its inspector port or heap size.
    const flags = process.execArgv.filter((a) => !/^--(inspect|debug|max-old-space-size)/.test(a));
    const child = fork(this.#entry, [], {
      serialization: 'advanced',
      execArgv: [...flags, `--max-old-space-size=${this.#heapMb}`],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let tail = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => (tail = (tail + text).slice(-STDERR_TAIL_CHARS)));
    child.on('message', (reply: Reply) => this.#answered(child, reply));
    child.on('error', (err) => this.#ended(child, `could not run: ${err.message}`));
    child.on('close', (code, signal) => this.#ended(child, endText(code, signal, tail, this.#heapMb)));
    this.#child = child;
    this.#ready = false;
    this.#starting = this.#clock.setTimer(() => {
      this.#kill();
      this.#failFirst(new Error(`the expression process did not start within ${formatDuration(START_MS)}`));
    }, START_MS);
    return child;
  }

  #answered(child: ChildProcess, reply: Reply): void {
    if (reply.ready && child === this.#child) {
      this.#starting?.();
      this.#ready = true;
      return this.#next();
    }
    const r = this.#running;
    if (!r || r.child !== child || r.id !== reply.id) return;
    this.#settle(r, reply.error === undefined ? undefined : new Error(`the expression process failed: ${reply.error}`), reply.result);
  }

  /** The process ended on its own (out of memory, a fatal error): the request it held fails. */
  #ended(child: ChildProcess, why: string): void {
    if (this.#child !== child) return; // one this runner ended: nothing waits on it
    const starting = !this.#ready;
    this.#kill();
    const r = this.#running;
    if (r?.child === child) return this.#settle(r, new Error(`the expression process ended: ${why}`));
    // It never became ready: the request waiting for it fails, the next one tries again.
    if (starting) this.#failFirst(new Error(`the expression process could not start: ${why}`));
  }

  #overrun(): void {
    const r = this.#running;
    if (!r) return;
    this.#kill();
    r.job.budget.leftMs = 0;
    this.#settle(r, new Error(overrunText(r.job.budget)));
  }

  /** Shutdown, reload, or the evaluation ended: a queued request leaves the queue, a running one is stopped. */
  #abort(job: Job): void {
    const r = this.#running;
    if (r?.job === job) {
      this.#kill();
      this.#settle(r, job.signal.reason);
      return;
    }
    this.#queue = this.#queue.filter((j) => j !== job);
    this.#done(job, job.signal.reason);
  }

  #settle(r: Running, error: unknown, result?: unknown): void {
    r.timer();
    this.#running = undefined;
    r.job.budget.leftMs -= this.#clock.mono() - r.started;
    this.#done(r.job, error, result);
    this.#next();
  }

  #done(job: Job, error: unknown, result?: unknown): void {
    job.signal.removeEventListener('abort', job.onAbort);
    if (error === undefined) job.resolve(result);
    else job.reject(error);
  }

  #idleSoon(): void {
    const child = this.#child;
    if (!child) return;
    refAll(child, false);
    this.#idle?.();
    this.#idle = this.#clock.setTimer(() => this.#kill(), this.#idleMs, { unref: true });
  }

  #kill(): void {
    const child = this.#child;
    this.#child = undefined;
    this.#ready = false;
    this.#idle?.();
    this.#starting?.();
    child?.kill('SIGKILL');
  }
}

/** Idle, the process never keeps the daemon (or a `once` run) alive; at work, it does. */
function refAll(child: ChildProcess, on: boolean): void {
  for (const handle of [child, child.channel, child.stderr instanceof Socket ? child.stderr : undefined]) {
    if (on) handle?.ref();
    else handle?.unref();
  }
}

function overrunText(b: Budget): string {
  return `expressions ran past ${formatDuration(b.limitMs)} (expressionTimeout) and were stopped`;
}

/** Why the process ended, from its exit and the last of its stderr (V8's fatal errors). */
function endText(code: number | null, signal: NodeJS.Signals | null, stderr: string, heapMb: number): string {
  if (/heap out of memory|Reached heap limit/i.test(stderr)) return `out of memory: its expressions needed more than ${heapMb} MB`;
  if (/invalid (size|array length|table size)/i.test(stderr)) return 'a value grew past the largest size V8 allows';
  return signal ? `killed by ${signal}` : `exit code ${code ?? '?'}`;
}
