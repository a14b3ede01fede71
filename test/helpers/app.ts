import { vi } from 'vitest';
import { App } from '../../src/app/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/base/log.js';

/** Collects what the process writes to stderr (the JSON log) until vi.restoreAllMocks(). */
export function captureStderr(): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  return lines;
}

/** The daemon in this process, from a config file on disk, logging with its secrets scrubbed. */
export async function startApp(configFile: string, level = 'info'): Promise<App> {
  const loaded = loadConfig(configFile, {});
  const sink = createLogger(level, false);
  sink.setSecrets(loaded.secrets);
  const app = new App({ loaded, log: sink.log });
  await app.start();
  return app;
}
