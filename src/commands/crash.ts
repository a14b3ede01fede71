import type { Logger } from '../base/log.js';
import { errorText } from '../engine/engine.js';

/**
 * What `run` does with a fault nothing caught: it still ends the daemon (what it was doing may
 * be half done; its supervisor starts it again), but through the log, with its stack and
 * scrubbed of secrets, where the operator reads. Node's own report of it is neither.
 */
export function crashHandler(log: Logger, what: 'an error' | 'a rejected promise', exit: (code: number) => void = (code) => process.exit(code)): (err: unknown) => void {
  return (err) => {
    log.fatal({ err }, `stopped on ${what} nothing handled: ${errorText(err)}`);
    exit(1);
  };
}
