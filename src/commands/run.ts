import { setFlagsFromString } from 'node:v8';
import { composeApp, openConfiguredStore } from '../app/compose.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import type { Shard } from '../base/shard.js';
import { logWarnings } from './warnings.js';
import { systemClock } from '../base/clock.js';
import { crashHandler } from './crash.js';

export interface RunOptions {
  /** The rules of one shard (all without --shard). */
  ofShard: (l: LoadedConfig) => LoadedConfig;
  shard?: Shard | undefined;
  watch: boolean;
  logLevel?: string | undefined;
}

/** `avawatch run`: the daemon, until SIGTERM or SIGINT; SIGHUP reloads. */
export async function runCommand(loaded: LoadedConfig, o: RunOptions): Promise<void> {
  // A daemon that polls: V8 sizes its heap for memory rather than allocation speed
  // (a young generation of 16 MB, not 32, at 10,000 nodes; BENCHMARKS.md, memory).
  setFlagsFromString('--optimize-for-size');
  const first = o.ofShard(loaded);
  const store = await openConfiguredStore(first);
  const { app, sink } = composeApp(first, { logLevel: o.logLevel, reload: () => o.ofShard(loadConfig(loaded.file, process.env)), watch: o.watch, store });
  logWarnings(sink.log, loaded, true);
  if (o.shard) sink.log.info({ shard: `${o.shard.index}/${o.shard.count}`, rules: first.rules.map((r) => r.name) }, 'evaluating one shard of the rules');
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    sink.log.info({ signal }, 'shutting down');
    systemClock.setTimer(
      () => {
        sink.log.error('shutdown took longer than 10s; exiting');
        process.exit(1);
      },
      10_000,
      { unref: true },
    );
    void app.stop().then(() => process.exit(0));
  };
  process.on('uncaughtException', crashHandler(sink.log, 'an error'));
  process.on('unhandledRejection', crashHandler(sink.log, 'a rejected promise'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // Handled from the start: unhandled, SIGHUP would end the process.
  process.on('SIGHUP', () => void app.reload('SIGHUP'));
  await app.start();
}
