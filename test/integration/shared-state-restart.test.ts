import { describe, expect, it } from 'vitest';
import { cluster, databaseUrl, heldSum, holderOf, LEASE_MS, NODES, notified, notifiedOf, oneHolderEach, period, poll, quiet, readyz, REJOIN_MS, RULE_SHARDS, RULES, scrape, scrapeAll, settled, SHARDS, SLACK_MS, startThree, threeOnPostgres, watchHeldInTest, world, type HeldSample } from '../helpers/shared-three.js';

// Shared state (issue 43): three `avawatch run` processes on one config and one PostgreSQL
// database, PostgreSQL itself restarted under them. What an operator sees is
// asserted: each instance's /metrics, /readyz and JSON log, and the webhook receiver all send to.
// The fixture, on the wall clock, is test/helpers/shared-three.ts (one file per fault family:
// they run side by side, each on its own cluster).

threeOnPostgres();

describe('shared state: PostgreSQL restarted under three instances', () => {
  // PostgreSQL itself restarted under the three: every connection cut at once, the server back
  // on the same port with its data. `immediate` is a crash (recovery at start), `fast` a clean
  // shutdown: each back in well under a lease, so the leases run on through it. `down past a
  // lease`: the server stays down until every instance has stepped down (every lease ended on
  // the database's clock too), then starts, and the three take the 256 shards again from
  // nothing at once. The change is made in the simulator just before: its holder may commit it
  // before the server goes, have its commit cut, or find it only once the server is back (its
  // own or another's, the shard moved); whichever, it is told once.
  it.each(['immediate', 'fast', 'down past a lease'] as const)(
    'PostgreSQL restarted (%s) just after a change: every instance rejoins, no shard has two holders (their gauges, their logs, the leases table), each rule has one evaluator, and the change is told once',
    async (mode) => {
      const live = await startThree(`restart_${mode.replaceAll(' ', '_')}`);
      await settled(live);
      const rule = RULES[0];
      const watch = watchHeldInTest(live, 60_000);

      world().setValidators('mainnet', NODES[rule], [period(rule, 'first', 2)]);
      if (mode !== 'down past a lease') await cluster().restart(mode);
      else {
        await cluster().kill();
        await poll(async () => (await Promise.all(live.map(scrape))).every((s) => s?.steppedDown === 1), 'all three to step down', LEASE_MS + SLACK_MS);
        await cluster().start();
      }
      // Every instance back: holding shards, not stepped down, ready; all 256 held between them.
      await poll(
        async () => {
          const s = await scrapeAll(live);
          return s !== undefined && s.every((x) => x.steppedDown === 0 && (x.held ?? 0) > 0) && s.reduce((sum, x) => sum + (x.held ?? 0), 0) === SHARDS;
        },
        `the three to hold the ${SHARDS} shards again, each some, none stepped down`,
        REJOIN_MS,
      );
      await poll(async () => (await Promise.all(live.map(readyz))).every((r) => r.status === 200), 'all three ready again', REJOIN_MS);
      await notifiedOf(`${rule} firing`);

      // Settled again: each rule evaluated by exactly one instance, the one the leases table says holds its shard.
      const evaluators = await settled(live);
      expect(RULES.filter((r) => evaluators[r].length !== 1).map((r) => `${r} evaluated by [${evaluators[r].map((i) => i.name).join(', ')}]`)).toEqual([]);
      // The database, the logs and the gauges agree: each shard held by exactly one of the three.
      // Polled: a rebalance may fall between the reads.
      const database = databaseUrl();
      let last: Awaited<ReturnType<typeof oneHolderEach>> | undefined;
      const { holders } = await poll(
        async () => {
          last = await oneHolderEach(live, database);
          return 'holders' in last ? last : undefined;
        },
        'the leases table, the logs and the gauges to agree on one holder for each shard',
        2 * LEASE_MS,
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\n${last && 'disagree' in last ? last.disagree.slice(0, 20).join('\n') : ''}`);
      });
      for (const r of RULES) expect(holders[RULE_SHARDS[r]], `${r}'s shard's holder in the leases table`).toBe(holderOf(evaluators, r).name);

      await quiet(live, rule);
      await watch.stop();
      // At no sampled moment more than 256 shards held between them; after, exactly 256.
      expect(watch.samples.filter((s) => heldSum(s) > SHARDS).map((s) => `${new Date(s.at).toISOString()}: [${s.held.join(', ')}]`)).toEqual([]);
      expect(heldSum(watch.samples.at(-1) as HeldSample)).toBe(SHARDS);
      // Told once, whoever told it; nothing else told.
      expect(notified()).toEqual({ [`${rule} firing`]: 1 });
    },
    60_000,
  );
});
