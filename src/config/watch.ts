import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Logger } from '../base/log.js';
import type { Cancel, Timers } from '../base/timers.js';
import type { LoadedConfig } from './load.js';

export interface ConfigWatcher {
  /** Stops watching; true when a change was still waiting out its debounce. */
  close(): boolean;
}

const DEBOUNCE_MS = 300;

/**
 * Calls onChange once a burst of changes to the config or rule files has settled.
 * Watches directories, not files: editors save by writing a new file and renaming it
 * over the old one, which a watch on the old file would miss; and a new file matching
 * a ruleFiles glob has to be seen too. The debounce waits on `clock` (the App's).
 */
export function watchConfig(loaded: LoadedConfig, onChange: () => void, log: Logger, clock: Timers): ConfigWatcher {
  const base = dirname(loaded.file);
  const inventory = loaded.inventoryFile === undefined ? [] : [dirname(loaded.inventoryFile)];
  const dirs = new Set([base, ...inventory, ...loaded.ruleFiles.map((f) => dirname(f)), ...loaded.config.ruleFiles.map((p) => resolve(base, globBase(p)))]);
  const configName = basename(loaded.file);
  let timer: Cancel | undefined;
  const watchers: FSWatcher[] = [];
  for (const dir of dirs) {
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => {
        const file = name?.toString();
        // `..data` and `..2026_…`: Kubernetes swaps a ConfigMap's files in by renaming a directory.
        if (file !== undefined && file !== configName && !/\.ya?ml$/i.test(file) && !file.startsWith('..')) return;
        timer?.();
        timer = clock.setTimer(() => {
          timer = undefined;
          onChange();
        }, DEBOUNCE_MS);
      });
      w.on('error', (err) => log.warn({ dir, error: err.message }, 'cannot watch the directory for config changes; SIGHUP still reloads'));
      watchers.push(w);
    } catch (err) {
      log.warn({ dir, error: err instanceof Error ? err.message : String(err) }, 'cannot watch the directory for config changes; SIGHUP still reloads');
    }
  }
  return {
    close() {
      const pending = timer !== undefined;
      timer?.();
      for (const w of watchers) w.close();
      return pending;
    },
  };
}

/** The directory part of a glob before its first wildcard: `rules/**\/*.yaml` → `rules`. */
function globBase(pattern: string): string {
  const parts = pattern.split('/');
  const i = parts.findIndex((p) => /[*?[\]{}!]/.test(p));
  return i === -1 ? dirname(pattern) : parts.slice(0, i).join('/') || '.';
}
