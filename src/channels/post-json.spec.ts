import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postForAnswer, postJson } from './post-json.js';
import type { DeliveryError } from './types.js';

const servers: Server[] = [];

/** A loopback server answering with `handle` once it has read the whole request. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handle(req, res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/T0SECRET42/xyzzySecretPath`;
}

const options = (timeoutMs = 2_000) => ({ prefix: 'webhook receiver "hook"', timeoutMs, signal: new AbortController().signal });
const failure = (p: Promise<unknown>): Promise<DeliveryError> => p.then(() => expect.fail('expected the post to fail'), (err: DeliveryError) => err);

describe('postJson and postForAnswer', () => {
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  it('reads a huge answer only up to its cap, and still classifies the attempt', async () => {
    let written = 0;
    let closed!: (early: boolean) => void;
    const closedEarly = new Promise<boolean>((r) => (closed = r));
    const total = 64 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const url = await serve((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html', 'content-length': String(total) });
      const more = (): void => {
        while (written < total) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => closed(written < total));
      more();
    });
    const err = await failure(postJson(url, '{}', options()));
    expect(err).toMatchObject({ message: 'webhook receiver "hook": HTTP 500 (body not shown)', reason: 'http_500', retryable: true });
    expect(await closedEarly).toBe(true);
    // What the socket buffers held, not the 64 MB offered.
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it('a redirect is a configuration error, dead at once, naming the host and never the path', async () => {
    const url = await serve((_req, res) => res.writeHead(301, { location: 'https://hooks.example.net/services/T0NEWSECRET/abcdefSecret' }).end());
    const err = await failure(postJson(url, '{}', options()));
    expect(err).toMatchObject({
      message: 'webhook receiver "hook": the receiver\'s URL redirects (HTTP 301 to hooks.example.net): a configuration error; fix the URL',
      reason: 'redirect',
      retryable: false,
    });
    const same = await serve((_req, res) => res.writeHead(308, { location: '/hooks/elsewhere' }).end());
    expect((await failure(postForAnswer(same, '{}', options()))).message).toBe(
      'webhook receiver "hook": the receiver\'s URL redirects (HTTP 308 to another path on the same host): a configuration error; fix the URL',
    );
  });

  it('no answer after the request was sent: a timeout that says the receiver may have it', async () => {
    const url = await serve(() => undefined);
    const err = await failure(postJson(url, '{}', options(100)));
    expect(err).toMatchObject({
      message: 'webhook receiver "hook": no answer within 100ms after the request was sent (it may have been delivered)',
      reason: 'timeout',
      retryable: true,
      maybeDelivered: true,
    });
  });

  it('the connection dropped after the request was sent: the receiver may have it', async () => {
    const url = await serve((req) => req.socket.destroy());
    const err = await failure(postJson(url, '{}', options()));
    expect(err).toMatchObject({ reason: 'network', retryable: true, maybeDelivered: true });
    expect(err.message).toMatch(/^webhook receiver "hook": \w+ after the request was sent \(it may have been delivered\)$/);
  });

  it('nothing listening: a clean retry, nothing was sent', async () => {
    const url = await serve(() => undefined);
    const server = servers.pop() as Server;
    await new Promise((r) => server.close(r));
    const err = await failure(postJson(url, '{}', options()));
    expect(err).toMatchObject({ message: 'webhook receiver "hook": ECONNREFUSED', reason: 'network', retryable: true, maybeDelivered: false });
  });
});
