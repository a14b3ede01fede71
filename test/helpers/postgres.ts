import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { waitUntil, type Wait } from './wait.js';
import { freePort } from './ports.js';

// A throwaway PostgreSQL cluster for one test file: Debian's `postgresql` binaries (initdb,
// pg_ctl), a data directory in a temporary directory, TCP on a free port of 127.0.0.1 and
// its unix socket inside that directory (nothing of the machine's own cluster is touched).
// Durability against a machine's crash is off (fsync, full_page_writes): a commit costs no
// disk flush. Against the server's crash it stays: synchronous_commit is on, so a commit is in
// the kernel's hands before it returns, and kill() or restart('immediate') loses nothing committed. initdb runs once per machine and PostgreSQL
// version: its output is kept as a template in the temporary directory and copied for each
// cluster (a copy: about 0.1 s of CPU; initdb: 1.5 s).

const run = promisify(execFile);

/**
 * Every wait on daemons that share a PostgreSQL store (their leases, takeovers, step-downs): the
 * leases are the database's time and its answers take real time. On fake time a query's
 * milliseconds would become seconds of the daemons', so leases lapse and polls overrun.
 */
// real wait: leases timed by PostgreSQL's now(), several daemons answering in real time; no test clock reaches them.
export const onLeases: Wait = (check, what, timeoutMs) => waitUntil(check, what, timeoutMs);

/** onLeases with `check` asked at most every 200 ms: each one scrapes daemons. */
export function pollLeases<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs: number): Promise<T> {
  let next = 0;
  return onLeases(
    async () => {
      if (Date.now() < next) return undefined;
      next = Date.now() + 200;
      return check();
    },
    what,
    timeoutMs,
  );
}

export interface RunningPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication: no password). */
  readonly url: string;
  readonly port: number;
  /** Creates an empty database in the cluster; its URL. */
  database(name: string): Promise<string>;
  /** Stops it as a crash would (`pg_ctl stop -m immediate`): every connection cut, the data kept; start() brings it back on the same port. */
  kill(): Promise<void>;
  /** Starts it again after kill(). */
  start(): Promise<void>;
  /** Restarts it on the same port with its data: every connection is cut. `immediate`: a crash and recovery; `fast`: a clean shutdown. */
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stops it and removes its directory (a test file's afterAll). */
  stop(): Promise<void>;
}

const INSTALL = 'run `bash scripts/test-deps.sh` (Debian package postgresql)';

/** The directory of initdb, pg_ctl and postgres: pg_config's, else the newest /usr/lib/postgresql/<version>/bin. */
export function postgresBin(): string {
  const fromPgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const candidates = fromPgConfig.status === 0 ? [fromPgConfig.stdout.trim()] : [];
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => join(debian, v, 'bin')));
  }
  const bin = candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
  if (bin === undefined) throw new Error(`PostgreSQL is not installed: no initdb and pg_ctl in \`pg_config --bindir\` or /usr/lib/postgresql/*/bin; ${INSTALL}`);
  return bin;
}

/** As root, PostgreSQL refuses to run: its binaries run as the `postgres` user (made by the Debian package). */
function asOwner(bin: string, args: readonly string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [bin, [...args]];
  if (spawnSync('id', ['-u', 'postgres']).status !== 0) throw new Error(`running as root, and there is no \`postgres\` user to run PostgreSQL as; ${INSTALL}`);
  return ['runuser', ['-u', 'postgres', '--', bin, ...args]];
}

function giveToOwner(path: string): void {
  if (process.getuid?.() !== 0) return;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(path, uid, gid);
}

/** initdb's output for this PostgreSQL, made once per machine (several workers may race: the first rename wins). */
function template(bin: string): string {
  // `postgres (PostgreSQL) 15.18 (Debian …)`: a new minor version makes a new template.
  const version = /\d+(\.\d+)*/.exec(execFileSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }))?.[0] ?? 'unknown';
  const path = join(tmpdir(), `avawatch-pg-template-${version}`);
  if (existsSync(join(path, 'PG_VERSION'))) return path;
  const scratch = mkdtempSync(`${path}.tmp-`);
  giveToOwner(scratch);
  const [cmd, args] = asOwner(join(bin, 'initdb'), ['-D', join(scratch, 'data'), '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const made = spawnSync(cmd, args, { encoding: 'utf8' });
  if (made.status !== 0) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(`initdb failed (${made.status ?? made.signal}): ${made.stderr || made.error?.message}`);
  }
  try {
    renameSync(join(scratch, 'data'), path);
  } catch (err) {
    if (!existsSync(join(path, 'PG_VERSION'))) throw err;
  }
  rmSync(scratch, { recursive: true, force: true });
  return path;
}


/** Starts a cluster of its own (one per test file: each start copies a data directory and starts a server). */
export async function startPostgres(): Promise<RunningPostgres> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-pg-'));
  giveToOwner(dir);
  const data = join(dir, 'data');
  const log = join(dir, 'postgres.log');
  // cp -a keeps the owner (postgres) and the 0700 mode PostgreSQL insists on.
  execFileSync('cp', ['-a', template(bin), data]);
  let port = 0;
  const pgCtl = async (...args: string[]): Promise<void> => {
    const [cmd, argv] = asOwner(join(bin, 'pg_ctl'), ['-D', data, '-w', '-t', '60', ...args]);
    try {
      await run(cmd, argv);
    } catch (err) {
      const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
      throw new Error(`pg_ctl ${args.at(-1) ?? ''} failed: ${(err as Error).message}\n${tail}`);
    }
  };
  const start = () => pgCtl('-l', log, '-o', [`-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', '-c fsync=off', '-c full_page_writes=off'].join(' '), 'start');
  const kill = () => pgCtl('-m', 'immediate', 'stop');
  // A test file that dies before its afterAll leaves no server behind.
  const onExit = () => {
    const [cmd, argv] = asOwner(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
    spawnSync(cmd, argv);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await start();
      break;
    } catch (err) {
      // Another process took the port between freePort() and the server's bind: another port.
      if (attempt < 3 && /could not bind|already in use/i.test(String(err))) continue;
      process.off('exit', onExit);
      onExit();
      throw err;
    }
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async database(name) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(name)}`;
    },
    kill,
    start,
    async restart(mode = 'fast') {
      await pgCtl('-m', mode, 'stop');
      await start();
    },
    async stop() {
      process.off('exit', onExit);
      if (existsSync(join(data, 'postmaster.pid'))) await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
