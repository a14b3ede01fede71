import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { waitUntil, type Wait } from './wait.js';

/** The built CLI (`npm run build` first). */
export const CLI = join(import.meta.dirname, '../../dist/cli.js');

/** No AVAWATCH_*, no SLACK_*: a fresh machine. */
export const cleanEnv: Record<string, string> = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp' };

export interface CliOptions {
  cwd?: string;
  /** Added to cleanEnv. */
  env?: Record<string, string>;
  /** Run as this user (the test must be root to use it). */
  uid?: number;
  gid?: number;
  /** Killed (SIGKILL) after this long: the result then has signal 'SIGKILL'. Default 50 s. */
  timeoutMs?: number;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Every wait on a process of avawatch's own (`avawatch run`, `once`, an endpoint rule's
 * expression process), on what it did: seen in its log, its /metrics, its state file, at the
 * simulator or a receiver. Those run on the wall clock, and no fake timer reaches them.
 */
// real wait: a process of its own, on the wall clock (its scheduler, timers and exit are what is tested).
export const onProcess: Wait = (check, what, timeoutMs) => waitUntil(check, what, timeoutMs);

/** Runs `node dist/cli.js ...args` to its end, whatever its exit code. */
export function avawatch(args: string[], o: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: o.cwd ?? process.cwd(),
      env: { ...cleanEnv, ...o.env },
      ...(o.uid === undefined ? {} : { uid: o.uid }),
      ...(o.gid === undefined ? {} : { gid: o.gid }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 50_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export interface Daemon {
  child: ChildProcessWithoutNullStreams;
  /** Everything it wrote to stderr so far (its JSON log). */
  log(): string;
  /** Its exit: code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Its /metrics base URL, once it logged "avawatch running". */
  started(timeoutMs?: number): Promise<string>;
  /** SIGKILL, and wait for the exit. */
  kill(): Promise<void>;
}

/** `avawatch -c config run ...args` in the background. */
export function startDaemon(configFile: string, o: CliOptions & { args?: string[] } = {}): Daemon {
  const child = spawn(process.execPath, [CLI, '-c', configFile, 'run', ...(o.args ?? [])], {
    cwd: o.cwd ?? process.cwd(),
    env: { ...cleanEnv, ...o.env },
  });
  let log = '';
  child.stderr.on('data', (c: Buffer) => (log += c.toString('utf8')));
  child.stdout.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    log: () => log,
    exited,
    started: (timeoutMs = 10_000) =>
      onProcess(
        () => {
          if (child.exitCode !== null) throw new Error(`the daemon exited with code ${child.exitCode}:\n${log}`);
          return /"metrics":"(http:\/\/[^"]+)\/metrics"/.exec(log)?.[1];
        },
        'the daemon to start',
        timeoutMs,
      ),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
