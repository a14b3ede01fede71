import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type Pretty from 'pino-pretty';
import { scrub, type Secret } from './secret.js';

export type { Logger };

export interface LogSink {
  log: Logger;
  /** Every line is scrubbed of these values before it is written: a backstop to Secret. */
  setSecrets(secrets: readonly Secret[]): void;
}

/**
 * JSON lines on stderr; readable lines when stderr is a terminal. stdout stays for command
 * output. `write` takes the scrubbed lines instead of stderr (the benchmark counts warnings).
 */
export function createLogger(level: string, readable = process.stderr.isTTY === true, write?: (line: string) => void): LogSink {
  let secrets: readonly Secret[] = [];
  const scrubbed = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const line = String(chunk);
      const clean = secrets.length > 0 ? scrub(line, secrets) : line;
      if (write) write(clean);
      else process.stderr.write(clean);
      done();
    },
  });
  const destination = readable
    ? prettyStream()({ destination: scrubbed, colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', sync: true })
    : scrubbed;
  const log = pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, destination);
  return {
    log,
    setSecrets(next) {
      secrets = next;
    },
  };
}

/** pino-pretty loads only for a terminal: a daemon logging JSON (and every CLI run under a pipe) starts without its 30 modules. */
function prettyStream(): typeof Pretty {
  return createRequire(import.meta.url)('pino-pretty') as typeof Pretty;
}
