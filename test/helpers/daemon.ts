import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import { loadConfig } from '../../src/config/load.js';
import { startSim, type SimOptions, type SimServer } from '../../src/sim/server.js';
import { useFakeTime, type UntilOptions } from './fake-time.js';
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

export type { UntilOptions };

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

/** Starts the fixture; `stop` tears it down whatever happened (also restoring real timers). */
export async function startDaemon(o: DaemonOptions): Promise<Daemon & { stop(): Promise<void> }> {
  const time = useFakeTime();
  const { warnings, until, settle, advance } = time;
  const parts: Array<() => Promise<void> | void> = [() => time.restore()];
  let app: App | undefined;
  const logs: string[] = [];
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
          // The daemon's time and timers are the simulator's, which runs on the fake clock.
          clock: sim.world.clock.asClock(),
          write: (line) => logs.push(line),
          watch: o.watch ?? false,
        });
        app = composed.app;
        await app.start();
        return app;
      },
      stopApp,
      advance,
      catchUp: time.catchUp,
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
