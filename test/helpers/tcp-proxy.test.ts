import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PgStore } from '../../src/store/postgres/store.js';
import { postgresForFile } from './postgres-file.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

// The proxy that stands between an instance and PostgreSQL in the shared-state tests (issue 43):
// first against an echo server on loopback, then against a real cluster through node-postgres.

/** A connection to `port` and what came back on it. */
function dial(port: number) {
  const socket = connect({ host: '127.0.0.1', port });
  socket.setEncoding('utf8');
  socket.on('error', () => undefined);
  let got = '';
  socket.on('data', (text: string) => (got += text));
  return {
    socket,
    got: () => got,
    /** Writes each part on its own and resolves with what comes back once as much has (rejects if the connection closes first). */
    echo(...parts: string[]): Promise<string> {
      const text = parts.join('');
      const from = got.length;
      return new Promise((resolve, reject) => {
        const check = () => {
          if (got.length < from + text.length) return;
          socket.off('data', check).off('close', closed);
          resolve(got.slice(from));
        };
        const closed = () => reject(new Error(`closed before the echo of "${text}"`));
        socket.on('data', check).once('close', closed);
        for (const part of parts) socket.write(part);
      });
    },
  };
}

/** Whether the socket closed on an error (a reset) when it closes. */
function closed(socket: Socket): Promise<boolean> {
  return new Promise((resolve) => socket.once('close', resolve));
}

/** Until the proxy has dropped `bytes` in all: a write met the blackhole (turns of the event loop, no time). */
async function droppedReach(proxy: TcpProxy, bytes: number): Promise<void> {
  while (proxy.dropped() < bytes) await new Promise((r) => setImmediate(r));
}

describe('the TCP proxy, in front of an echo server', () => {
  let echo: Server;
  let served: Socket[];
  let proxy: TcpProxy;

  beforeEach(async () => {
    served = [];
    echo = createServer((s) => {
      served.push(s);
      s.on('error', () => undefined);
      s.pipe(s);
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    proxy = await startTcpProxy({ target: { host: '127.0.0.1', port: (echo.address() as { port: number }).port } });
  });
  afterEach(async () => {
    await proxy.close();
    await proxy.close();
    for (const s of served) s.destroy();
    await new Promise((r) => echo.close(r));
  });

  it('passes bytes both ways', async () => {
    const c = dial(proxy.port);
    expect(await c.echo('hello')).toBe('hello');
    expect(await c.echo('again')).toBe('again');
    expect(proxy.connections()).toEqual({ accepted: 1, open: 1 });
    c.socket.destroy();
  });

  it('cut(): an open connection is closed at both ends, new ones are refused, until heal()', async () => {
    const c = dial(proxy.port);
    expect(await c.echo('before')).toBe('before');
    proxy.cut();
    // Reset, both the client and the server.
    expect(await Promise.all([closed(c.socket), closed(served[0] as Socket)])).toEqual([true, true]);
    const refused = dial(proxy.port);
    expect(await closed(refused.socket)).toBe(true);
    expect(served).toHaveLength(1);
    expect(proxy.connections()).toEqual({ accepted: 2, open: 0 });
    proxy.heal();
    const after = dial(proxy.port);
    expect(await after.echo('after')).toBe('after');
    after.socket.destroy();
  });

  it('blackhole(): bytes are lost both ways and the connection stays open; heal() forwards new bytes', async () => {
    const c = dial(proxy.port);
    expect(await c.echo('a')).toBe('a');
    proxy.blackhole();
    c.socket.write('lost');
    await droppedReach(proxy, 4);
    // A connection made meanwhile is accepted, and carries nothing either.
    const late = dial(proxy.port);
    late.socket.write('late');
    await droppedReach(proxy, 8);
    proxy.heal();
    expect(await c.echo('b')).toBe('b');
    expect(await late.echo('c')).toBe('c');
    // Nothing dropped came back after heal(): lost, not held.
    expect([c.got(), late.got()]).toEqual(['ab', 'c']);
    expect([c.socket.destroyed, late.socket.destroyed]).toEqual([false, false]);
    c.socket.destroy();
    late.socket.destroy();
  });

  it('delay(ms): each echo is held ms each way, in order; heal() ends it', async () => {
    const c = dial(proxy.port);
    expect(await c.echo('a')).toBe('a');
    proxy.delay(50);
    const start = performance.now();
    // real wait: the delay is what is tested (50 ms each way); not one of test/waits.test.ts's patterns.
    const held = c.echo('b', 'c', 'd');
    expect(await held).toBe('bcd');
    expect(performance.now() - start).toBeGreaterThanOrEqual(50);
    proxy.heal();
    expect(await c.echo('e')).toBe('e');
    c.socket.destroy();
  });

  it("delay(ms) runs on the host's time: a test's fake timers do not hold it", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    try {
      const c = dial(proxy.port);
      proxy.delay(10);
      // real wait: 10 ms each way, the proxy's own timers (fake time never moves here).
      expect(await c.echo('x')).toBe('x');
      c.socket.destroy();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the TCP proxy, in front of PostgreSQL', () => {
  const postgres = postgresForFile();

  it('a store through it pings; blackholed, its ping fails on the cap; healed, a new connection pings again', async () => {
    const url = await postgres.database('through_proxy');
    const proxy = await startTcpProxy({ target: { host: '127.0.0.1', port: postgres.port } });
    // One connection in the pool: the one the blackhole kills is the one the next ping would use.
    const store = await PgStore.open(url.replace(`:${postgres.port}/`, `:${proxy.port}/`), { max: 1, connectTimeoutMs: 2_000, queryTimeoutMs: 1_000 });
    try {
      await store.ping();
      expect(proxy.connections().accepted).toBe(1);
      proxy.blackhole();
      // real wait: the query's cap (1 s) is what ends a ping nobody answers; not one of test/waits.test.ts's patterns.
      await expect(store.ping()).rejects.toThrow(/timeout/i);
      proxy.heal();
      await store.ping();
      expect(proxy.connections().accepted).toBe(2);
    } finally {
      await store.close();
      await proxy.close();
    }
  });
});
