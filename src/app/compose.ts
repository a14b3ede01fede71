import type { Clock } from '../base/clock.js';
import type { LoadedConfig } from '../config/load.js';
import { createLogger, type LogSink } from '../base/log.js';
import type { Secret } from '../base/secret.js';
import { openStore, SqliteStore, type StateStore } from '../store/index.js';
import { App } from './app.js';

export interface ComposeOptions {
  /** Overrides log.level (the CLI's --log-level): a reload then keeps it. */
  logLevel?: string | undefined;
  /** Readable lines instead of JSON (default: when stderr is a terminal). */
  readable?: boolean;
  /** The config read again for a reload (throws ConfigError when it is invalid). */
  reload?: () => LoadedConfig;
  /** Reload when the config or a rule file changes on disk. */
  watch?: boolean;
  /** The App's clock (rule tests and the demo run on simulated time; default the wall clock). */
  clock?: Clock;
  /** The log's lines, scrubbed, instead of stderr (the benchmark counts warnings). */
  write?: (line: string) => void;
  /** The store, opened by openStore (required with `state.url`); default: the SQLite file. */
  store?: StateStore;
}

export interface Composed {
  app: App;
  sink: LogSink;
}

/**
 * The one way an App is built (the CLI's run and once, the demo, rule tests, test helpers,
 * the benchmark): its log sink at the config's level, scrubbed of the config's secrets, and
 * after a reload of the new ones too (a request made before it may still log an old one).
 */
export function composeApp(loaded: LoadedConfig, o: ComposeOptions = {}): Composed {
  const sink = createLogger(o.logLevel ?? loaded.config.log.level, o.readable, o.write);
  let secrets: readonly Secret[] = loaded.secrets;
  sink.setSecrets(secrets);
  const { reload } = o;
  const app = new App({
    loaded,
    log: sink.log,
    ...(o.clock ? { clock: o.clock } : {}),
    store: o.store ?? fileStore(loaded),
    ...(o.watch === undefined ? {} : { watch: o.watch }),
    ...(reload
      ? {
          reload: () => {
            const next = reload();
            secrets = [...secrets, ...next.secrets.filter((n) => !secrets.some((s) => s.reveal() === n.reveal()))];
            sink.setSecrets(secrets);
            if (o.logLevel === undefined) sink.log.level = next.config.log.level;
            return next;
          },
        }
      : {}),
  });
  return { app, sink };
}

/** The store `state:` names, opened: PostgreSQL (`state.url`) connects and migrates here, before an App is built on it. */
export function openConfiguredStore(loaded: LoadedConfig, o: { write?: boolean } = {}): Promise<StateStore> {
  const { path, url, lease } = loaded.config.state;
  return openStore({ path, url: url?.reveal(), leaseMs: lease }, o);
}

/** The SQLite file, opened synchronously; `state.url` needs openConfiguredStore first (PostgreSQL opens asynchronously). */
function fileStore(loaded: LoadedConfig): StateStore {
  if (loaded.config.state.url !== undefined) throw new Error('state.url: open the PostgreSQL store with openConfiguredStore and hand it to composeApp');
  return SqliteStore.open(loaded.config.state.path);
}
