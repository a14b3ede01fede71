import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil, type Wait } from './wait.js';

export interface SlackPost {
  path: string;
  body: { text: string; blocks: Array<Record<string, unknown>> };
  at: number;
}

export interface SlackReceiver {
  /** The webhook URL to configure (a path that looks like Slack's, with a secret part). */
  webhookUrl: string;
  posts: SlackPost[];
  /** Answers the next requests with these statuses (then 200 "ok" again). */
  failNext(...responses: Array<{ status: number; body?: string; retryAfter?: number }>): void;
  /** Answers every request with this status (and body, default "error") until cleared with undefined. */
  failAll(status: number | undefined, body?: string): void;
  attempts: number;
  /** When each request arrived (ms since epoch), accepted or not. */
  attemptTimes: number[];
  /** Never answer (until closed): a black-holed webhook. */
  hang(on: boolean): void;
  /** Every request body received, answered or not, in order (a hung or failed post too). */
  received: SlackPost[];
  /**
   * Called when a request's body has been read, before it is answered (also when hanging).
   * Synchronous: a test can kill the sender here, before any answer leaves.
   */
  onReceived(cb: ((post: SlackPost) => void) | undefined): void;
  /** Called right after a post was answered 200 (in the same handler, before the sender reads the answer). */
  onAnswered(cb: ((post: SlackPost) => void) | undefined): void;
  /** Waits (with the receiver's `wait`: real time, or a fake clock's pump) for `count` accepted posts. */
  waitForPosts(count: number, timeoutMs?: number): Promise<SlackPost[]>;
  close(): Promise<void>;
}

export const WEBHOOK_SECRET_PATH = '/services/T00000000/B00000000/XXXXsecretXXXXtokenXXXX';

/**
 * A Slack incoming-webhook stand-in on loopback that records every accepted post. `wait`
 * polls a condition for waitForPosts (default: on real time; the daemon fixture passes its
 * fake clock's pump).
 */
export async function startSlackReceiver(o: { wait?: Wait } = {}): Promise<SlackReceiver> {
  // real wait: only where the test passes no fake clock's pump (a daemon process on the wall clock).
  const wait = o.wait ?? waitUntil;
  const posts: SlackPost[] = [];
  const queue: Array<{ status: number; body?: string; retryAfter?: number }> = [];
  let always: number | undefined;
  let alwaysBody: string | undefined;
  let attempts = 0;
  let hanging = false;
  const attemptTimes: number[] = [];
  const received: SlackPost[] = [];
  let receivedHook: ((post: SlackPost) => void) | undefined;
  let answeredHook: ((post: SlackPost) => void) | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      attempts++;
      attemptTimes.push(Date.now());
      const raw = Buffer.concat(chunks).toString('utf8');
      let parsed: SlackPost['body'] | undefined;
      try {
        parsed = JSON.parse(raw) as SlackPost['body'];
      } catch {
        parsed = undefined;
      }
      if (parsed) {
        const post = { path: req.url ?? '', body: parsed, at: Date.now() };
        received.push(post);
        receivedHook?.(post);
      }
      if (hanging) return;
      const planned = always !== undefined ? { status: always, ...(alwaysBody === undefined ? {} : { body: alwaysBody }) } : queue.shift();
      if (planned) {
        const headers: Record<string, string> = { 'content-type': 'text/plain' };
        if (planned.retryAfter !== undefined) headers['retry-after'] = String(planned.retryAfter);
        res.writeHead(planned.status, headers).end(planned.body ?? 'error');
        return;
      }
      const post = { path: req.url ?? '', body: JSON.parse(raw), at: Date.now() };
      posts.push(post);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      answeredHook?.(post);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    webhookUrl: `http://127.0.0.1:${port}${WEBHOOK_SECRET_PATH}`,
    posts,
    get attempts() {
      return attempts;
    },
    attemptTimes,
    hang: (on) => {
      hanging = on;
    },
    received,
    onReceived: (cb) => {
      receivedHook = cb;
    },
    onAnswered: (cb) => {
      answeredHook = cb;
    },
    failNext: (...responses) => queue.push(...responses),
    failAll: (status, body) => {
      always = status;
      alwaysBody = body;
    },
    async waitForPosts(count, timeoutMs = 10_000) {
      try {
        return await wait(() => posts.length >= count && posts, `${count} Slack post(s)`, timeoutMs);
      } catch {
        throw new Error(`expected ${count} Slack post(s), got ${posts.length} within ${timeoutMs} ms`);
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** All the text a person sees in a post, blocks included. */
export function postText(post: SlackPost): string {
  return JSON.stringify(post.body);
}

/** A post's facts as a reader sees them: each field name (`*Node*`) with the value beside it, as sent (escaped). */
export function postFacts(post: SlackPost): Record<string, string> {
  const texts = post.body.blocks.flatMap((b) => (b['fields'] as Array<{ text: string }> | undefined) ?? []).map((f) => f.text);
  const facts: Record<string, string> = {};
  for (let i = 0; i + 1 < texts.length; i += 2) facts[texts[i]!.replace(/^\*(.*)\*$/, '$1')] = texts[i + 1]!;
  return facts;
}
