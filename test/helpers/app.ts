import { vi } from 'vitest';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import type { Clock } from '../../src/base/clock.js';
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
  const { app } = composeApp(loadConfig(configFile, {}), { logLevel: level, readable: false, ...(clock ? { clock, timerClock: clock } : {}) });
  await app.start();
  return app;
}
