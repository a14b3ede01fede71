import { afterEach, describe, expect, it } from 'vitest';
import { postgresForFile } from '../../../test/helpers/postgres-file.js';
import { startTcpProxy, type TcpProxy } from '../../../test/helpers/tcp-proxy.js';
import { endNow, openPool, transaction } from './connect.js';

// What a daemon that got PostgreSQL back (shards.afresh) does with the connections it had
// while the network was blackholed: a real cluster, reached through a proxy that drops
// every byte. The statement cap is 30 s and the test's own limit 20 s: a statement left to
// its cap fails the test.
const cluster = postgresForFile();

const proxies: TcpProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

describe('endNow', () => {
  it('fails a transaction whose statement went into a blackhole at once, not at its 30 s cap; the server rolls it back', async () => {
    const proxy = await startTcpProxy({ target: { host: '127.0.0.1', port: cluster.port } });
    proxies.push(proxy);
    const pool = openPool(`postgres://postgres@${proxy.host}:${proxy.port}/postgres`, { schema: 'blackholed' });
    await pool.query('CREATE SCHEMA IF NOT EXISTS blackholed; CREATE TABLE blackholed.marks (n int)');
    let sent!: () => void;
    const stuck = new Promise<void>((resolve) => (sent = resolve));
    const tx = transaction(pool, async (client) => {
      await client.query('INSERT INTO marks VALUES (1)');
      proxy.blackhole();
      const next = client.query('INSERT INTO marks VALUES (2)');
      sent();
      await next;
    });
    await stuck;
    await endNow(pool);
    await expect(tx).rejects.toThrow(/Connection terminated/);
    proxy.heal();
    // Nothing of it was committed: the server rolled the transaction back when its connection went.
    const direct = openPool(cluster.url);
    try {
      expect((await direct.query('SELECT count(*)::int AS n FROM blackholed.marks')).rows).toEqual([{ n: 0 }]);
    } finally {
      await direct.end();
    }
  });
});
