import { vi } from 'vitest';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import type { Clock } from '../../src/base/clock.js';
import type { FakeTime } from './fake-time.js';
import { loadConfig } from '../../src/config/load.js';

/** Collects what the process writes to stderr (the JSON log) until vi.restoreAllMocks(). */
export function captureStderr(): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  return lines;
}

/**
 * The daemon in this process, from a config file on disk, logging with its secrets scrubbed;
 * on `clock` (a test's fake time, test/helpers/fake-time.ts) when given.
 */
export async function startApp(configFile: string, level = 'info', clock?: Clock): Promise<App> {
  const { app } = composeApp(loadConfig(configFile, {}), { logLevel: level, readable: false, ...(clock ? { clock } : {}) });
  await app.start();
  return app;
}

/** An App in this process on a test's fake time, as `avawatch run` would start it from the file and environment. */
export interface LoggedApp {
  app: App;
  /** Its log so far, as the CLI would print it (JSON lines, scrubbed). */
  log(): string;
  /** Stops it, fake time moving meanwhile. */
  stop(): Promise<void>;
}

export async function startLoggedApp(time: FakeTime, configFile: string, env: Record<string, string>, level = 'debug'): Promise<LoggedApp> {
  const lines: string[] = [];
  const { app } = composeApp(loadConfig(configFile, env), { logLevel: level, readable: false, clock: time.clock, write: (l) => lines.push(l) });
  await app.start();
  let stopped: Promise<void> | undefined;
  return { app, log: () => lines.join(''), stop: () => (stopped ??= time.settle(app.stop(), 'the App to stop')) };
}
