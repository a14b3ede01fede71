import { vi } from 'vitest';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import { clockAt, unanchorSystemClock } from '../../src/base/clock.js';
import { MAX_TIMER_MS } from '../../src/base/timers.js';
import { loadConfig } from '../../src/config/load.js';
import { startSim, type SimOptions, type SimServer } from '../../src/sim/server.js';
import { writeFiles, writeProject, type ProjectOptions, type ProjectUrls, type TempProject } from './harness.js';
import { startSlackReceiver, type SlackReceiver } from './slack-receiver.js';

// The whole daemon in this process on a fake clock, in the manner of got's
// withServerAndFakeTimers: the simulator, a Slack receiver and the App talk over real
// loopback sockets, while every timer and Date run on fake time that the test pumps. A poll
// every second, a Retry-After or an API timeout then cost what the work costs, not the wait.

export interface DaemonOptions {
  /** The config and rules: writeProject's options (the URLs filled in), or the files themselves (avawatch.yaml and the rest). */
  project: Omit<ProjectOptions, 'dataUrl' | 'webhookUrl'> | ((p: ProjectUrls) => Record<string, string>);
  sim?: SimOptions;
  /** Called before the App starts: the world as the daemon first sees it. */
  before?: (d: Daemon) => void | Promise<void>;
  /** Start the App at once (default); false: the test calls start(). */
  start?: boolean;
  /** The log's level (default info): its lines, scrubbed, are in `logs`. */
  logLevel?: string;
  /** Reload when the config or a rule file changes on disk, as `avawatch run` does (default false). */
  watch?: boolean;
}

export interface UntilOptions {
  /** Fake milliseconds to wait at most (default 30 s). */
  within?: number;
  /**
   * Real milliseconds to let pass between steps (default none): for what runs on the real
   * clock inside the daemon, such as a socket's own timeout (libuv's, which no fake timer moves).
   */
  pace?: number;
}

export interface Daemon {
  sim: SimServer;
  slack: SlackReceiver;
  project: TempProject;
  /** The running App (the last one started). */
  readonly app: App;
  /** Every log line of every App started, as written (JSON). */
  logs: string[];
  /** The names of the process warnings emitted meanwhile (TimeoutOverflowWarning, …). */
  warnings: string[];
  /** Starts an App on the project's config as it is on disk now (another, after stopApp()). */
  start(): Promise<App>;
  /** Stops the running App (fake time moves while it drains). */
  stopApp(): Promise<void>;
  /** Lets `ms` of fake time pass, real I/O flowing in between. */
  advance(ms: number): Promise<void>;
  /** Pumps fake time until check() is truthy (its value), or fails naming `what`. */
  until<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, o?: UntilOptions): Promise<T>;
  /**
   * Brings fake time up to the wall clock at least. A process the test starts (the CLI)
   * reads the real one: what it writes (a silence's start) is then not in the daemon's future.
   */
  catchUp(): Promise<void>;
  /** Pumps fake time until the promise settles: its result. */
  settle<T>(p: Promise<T>, what: string, o?: UntilOptions): Promise<T>;
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

async function pumpUntil<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, o: UntilOptions = {}): Promise<T> {
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

/** Starts the fixture; `stop` tears it down whatever happened (also restoring real timers). */
export async function startDaemon(o: DaemonOptions): Promise<Daemon & { stop(): Promise<void> }> {
  vi.useFakeTimers({ toFake: [...FAKED] });
  // The App's steady clock anchors on the faked Date; and again on the real one after (clock.ts).
  unanchorSystemClock();
  warnOnOverflow();
  const warnings: string[] = [];
  const onWarning = (w: Error): void => void warnings.push(w.name);
  process.on('warning', onWarning);
  const parts: Array<() => Promise<void> | void> = [() => {
    vi.useRealTimers();
    unanchorSystemClock();
  }, () => void process.off('warning', onWarning)];
  let app: App | undefined;
  const logs: string[] = [];
  const until = <T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, u?: UntilOptions) => pumpUntil(check, what, u);
  const settle = async <T>(p: Promise<T>, what: string, u?: UntilOptions): Promise<T> => {
    let done = false;
    const watched = p.finally(() => (done = true));
    watched.catch(() => undefined);
    await pumpUntil(() => done, what, u);
    return watched;
  };
  const stopApp = async (): Promise<void> => {
    const running = app;
    app = undefined;
    // Shutdown waits up to its grace period (6 s) on timers: fake time must move meanwhile.
    if (running) await settle(running.stop(), 'the App to stop');
  };
  const stop = async (): Promise<void> => {
    for (const part of parts.splice(0).reverse()) {
      try {
        await part();
      } catch (err) {
        console.error('daemon fixture teardown:', err);
      }
    }
  };
  try {
    const sim = await startSim(o.sim);
    parts.push(() => sim.close());
    const slack = await startSlackReceiver({ wait: (check, what, ms) => until(check, what, ms === undefined ? {} : { within: ms }) });
    parts.push(() => slack.close());
    const urls = { dataUrl: sim.url, webhookUrl: slack.webhookUrl };
    const project = typeof o.project === 'function' ? writeFiles(o.project, urls) : writeProject({ ...o.project, ...urls });
    parts.push(() => project.cleanup());
    parts.push(stopApp);
    const advance = async (ms: number): Promise<void> => {
      const end = Date.now() + ms;
      while (Date.now() < end) await step(Math.min(STEP_MS, end - Date.now()));
    };
    const d: Daemon & { stop(): Promise<void> } = {
      sim,
      slack,
      project,
      get app(): App {
        if (!app) throw new Error('the daemon fixture has no App running: call start()');
        return app;
      },
      logs,
      warnings,
      async start() {
        await stopApp();
        const composed = composeApp(loadConfig(project.configFile, {}), {
          logLevel: o.logLevel ?? 'info',
          readable: false,
          // The daemon's time is the simulator's, which runs on the fake clock.
          clock: sim.world.clock.asClock(),
          // Its timers are fake, and so is Date: performance, the host's steady clock, is not.
          timerClock: clockAt(() => Date.now()),
          write: (line) => logs.push(line),
          watch: o.watch ?? false,
        });
        app = composed.app;
        await app.start();
        return app;
      },
      stopApp,
      advance,
      // performance is not faked: its origin plus its now is the wall clock.
      catchUp: () => advance(performance.timeOrigin + performance.now() - Date.now()),
      until,
      settle,
      stop,
    };
    await o.before?.(d);
    if (o.start !== false) await d.start();
    return d;
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The daemon fixture around one test body: torn down after it, passed or failed. */
export async function withDaemon(o: DaemonOptions, body: (d: Daemon) => Promise<void>): Promise<void> {
  const d = await startDaemon(o);
  try {
    await body(d);
  } finally {
    await d.stop();
  }
}
