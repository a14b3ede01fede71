import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type RunningPostgres } from './postgres.js';

/**
 * The calling test file's own cluster: started before its tests, stopped after them. Usable
 * from the file's tests and hooks (it is not started yet while the file is being collected).
 */
export function postgresForFile(): RunningPostgres {
  let running: RunningPostgres | undefined;
  beforeAll(async () => {
    running = await startPostgres();
  }, 60_000);
  afterAll(() => running?.stop());
  const started = (): RunningPostgres => {
    if (running === undefined) throw new Error('the PostgreSQL cluster starts in beforeAll: use it in a test or a hook');
    return running;
  };
  return {
    get url() {
      return started().url;
    },
    get port() {
      return started().port;
    },
    database: (name) => started().database(name),
    kill: () => started().kill(),
    start: () => started().start(),
    restart: (mode) => started().restart(mode),
    stop: () => started().stop(),
  };
}
