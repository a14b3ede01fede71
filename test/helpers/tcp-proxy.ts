import { connect, createServer, type Socket } from 'node:net';

// A TCP proxy on loopback between a process and a server (an avawatch instance and PostgreSQL),
// to break the network between them on purpose: cut it (connections reset), blackhole it
// (connections stay up and carry nothing, as behind a dead route), or slow it down.

// The host's timer, taken before any test fakes them: the proxy stands for the network, which
// runs on real time whatever the App's clock (vi.useFakeTimers replaces globalThis.setTimeout).
const hostSetTimeout = globalThis.setTimeout;

export interface TcpProxy {
  /** Where to connect instead of the target: 127.0.0.1 (as it goes into a URL) and the proxy's own port. */
  readonly host: string;
  readonly port: number;
  /** Resets every open connection, both ways, and resets each new one as soon as it is accepted, until heal(). */
  cut(): void;
  /** Every byte, both ways, dropped and lost (no close, no reset); new connections accepted and left silent, until heal(). */
  blackhole(): void;
  /** Every chunk forwarded `ms` after it came (order kept in each direction), until heal() or delay(0). */
  delay(ms: number): void;
  /** Forwards again, at once: new bytes pass (what was dropped meanwhile stays lost), new connections reach the target. */
  heal(): void;
  /** Connections accepted since the start (refused ones too), and those still open at either end. */
  connections(): { accepted: number; open: number };
  /** Bytes dropped while blackholed, both ways: what a test awaits to know a write met the blackhole. */
  dropped(): number;
  /** Stops listening and destroys every connection; again: nothing more. */
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

export async function startTcpProxy(o: { target: { host: string; port: number } }): Promise<TcpProxy> {
  let mode: 'forward' | 'cut' | 'blackhole' = 'forward';
  let delayMs = 0;
  let accepted = 0;
  let dropped = 0;
  const pairs = new Set<Pair>();

  // One direction of a connection. Each chunk is held from its arrival and written after the
  // one before it: the order holds when the delay changes. While blackholed nothing passes,
  // not even an end or a reset: the other side never hears of it.
  const forward = (from: Socket, to: Socket): void => {
    let last = Promise.resolve();
    const after = (write: () => void) => {
      const ms = delayMs;
      const held = ms === 0 ? undefined : new Promise<void>((done) => hostSetTimeout(done, ms));
      // A chunk in flight when the network broke is lost with it.
      last = last.then(() => held).then(() => (mode === 'forward' && !to.destroyed ? write() : undefined));
    };
    from.on('data', (chunk: Buffer) => {
      if (mode === 'forward') after(() => to.write(chunk));
      else dropped += chunk.length;
    });
    // Half-open connections (allowHalfOpen) pass an end on as an end, after the data before it.
    from.on('end', () => {
      if (mode === 'forward') after(() => to.end());
    });
    from.on('close', (hadError) => {
      if (hadError && mode === 'forward') to.resetAndDestroy();
    });
    // A reset or a refused target is expected here: 'close' passes it on.
    from.on('error', () => undefined);
  };

  const server = createServer({ allowHalfOpen: true }, (client) => {
    accepted++;
    client.on('error', () => undefined);
    if (mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ host: o.target.host, port: o.target.port, allowHalfOpen: true });
    const pair = { client, upstream };
    pairs.add(pair);
    forward(client, upstream);
    forward(upstream, client);
    const gone = () => (client.destroyed && upstream.destroyed ? pairs.delete(pair) : undefined);
    client.on('close', gone);
    upstream.on('close', gone);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as { port: number };

  let closed: Promise<void> | undefined;
  return {
    host: '127.0.0.1',
    port,
    cut() {
      mode = 'cut';
      for (const { client, upstream } of pairs) {
        client.resetAndDestroy();
        upstream.resetAndDestroy();
      }
    },
    blackhole() {
      mode = 'blackhole';
    },
    delay(ms) {
      delayMs = ms;
    },
    heal() {
      mode = 'forward';
      delayMs = 0;
    },
    connections() {
      return { accepted, open: pairs.size };
    },
    dropped: () => dropped,
    close() {
      closed ??= new Promise<void>((done) => {
        server.close(() => done());
        for (const { client, upstream } of pairs) {
          client.destroy();
          upstream.destroy();
        }
      });
      return closed;
    },
  };
}
