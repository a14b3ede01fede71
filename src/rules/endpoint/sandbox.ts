import { Worker } from 'node:worker_threads';
import { listPage, pageTexts, type ListRequest, type TextsRequest } from './read.js';

// The expression process: a child of the daemon that runs endpoint rules' JSONata (runner.ts
// starts it). Whatever an expression does here (a built-in that never returns, a value too
// large for memory, a V8 fatal error) ends this process at worst, never the daemon.

export interface Request {
  id: number;
  request: ListRequest | TextsRequest;
}

/** An answer, or (once, first) `ready`: the process has loaded and takes requests. */
export interface Reply {
  id?: number;
  ready?: true;
  result?: unknown;
  error?: string;
}

async function answer({ id, request }: Request): Promise<Reply> {
  try {
    return { id, result: request.op === 'list' ? await listPage(request) : await pageTexts(request) };
  } catch (err) {
    return { id, error: err instanceof Error ? err.message.slice(0, 500) : 'failed' };
  }
}

process.on('message', (message: Request) => {
  void answer(message).then((reply) => process.send?.(reply));
});
// The daemon is gone (or ended this process): nothing is left to answer.
process.on('disconnect', () => process.exit(0));
// A runaway holds this thread, so 'disconnect' waits on it: a thread of its own notices a
// daemon that died without a word (kill -9) and ends the process, runaway and all.
const WATCHDOG = `const { workerData: w } = require('node:worker_threads');
setInterval(() => { if (process.ppid !== w.parent) process.kill(w.self, 'SIGKILL'); }, 1000);`;
new Worker(WATCHDOG, { eval: true, workerData: { parent: process.ppid, self: process.pid } }).unref();
process.send?.({ ready: true } satisfies Reply);
