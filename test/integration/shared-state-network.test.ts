import { describe, expect, it } from 'vitest';
import { evaluatedElsewhere, holderOf, LEASE_MS, NODES, notified, notifiedOf, period, poll, quiet, readyz, received, RULES, scrape, scrapeAll, scrapeNow, SETTLE_MS, settled, SHARDS, SLACK_MS, startThree, TAKEOVER_MS, threeOnPostgres, world } from '../helpers/shared-three.js';

// Shared state (issue 43): three `avawatch run` processes on one config and one PostgreSQL
// database, one instance's network to PostgreSQL broken. What an operator sees is
// asserted: each instance's /metrics, /readyz and JSON log, and the webhook receiver all send to.
// The fixture, on the wall clock, is test/helpers/shared-three.ts (one file per fault family:
// they run side by side, each on its own cluster).

threeOnPostgres();

describe("shared state: one instance's network to PostgreSQL broken", () => {
  // An instance's network to PostgreSQL broken. `cut`: its connections reset, new ones
  // refused (every call fails at once); `blackhole`: they stay up and carry nothing (every
  // call hangs, as behind a dead route): only its own count of the lease can tell it to stop.
  it.each(['cut', 'blackhole'] as const)(
    '%s from PostgreSQL: it steps down within a lease (on /metrics and /readyz), evaluates and sends nothing; the others take its rules and notify a change once; healed, it rejoins',
    async (fault) => {
      const live = await startThree(`network_${fault}`);
      const evaluators = await settled(live);
      const rule = RULES[0];
      const cut = holderOf(evaluators, rule);
      const others = live.filter((i) => i !== cut);
      const before = await scrapeNow(others);

      cut.proxy[fault]();
      const cutAt = Date.now();
      await poll(async () => (await scrape(cut))?.steppedDown === 1, `the ${fault} instance to step down`, LEASE_MS + SLACK_MS);
      const notReady = await readyz(cut);
      expect(notReady.status).toBe(503);
      expect(notReady.text).toContain('shared state');
      await evaluatedElsewhere(others, before, rule, TAKEOVER_MS - (Date.now() - cutAt));
      await poll(
        async () => (await scrapeAll(others))?.reduce((sum, s) => sum + (s.held ?? 0), 0) === SHARDS,
        `the two others to hold the ${SHARDS} shards`,
        SETTLE_MS,
      );
      // Stepped down, its shards taken: from here nothing of it may move.
      const [stepped] = await scrapeNow([cut]);
      const sentBefore = received().filter((n) => n.from === cut.name).length;

      world().setValidators('mainnet', NODES[rule], [period(rule, 'first', 2)]);
      await notifiedOf(`${rule} firing`);
      await quiet(others, rule);
      const [still] = await scrapeNow([cut]);
      expect(still?.evaluations, 'its evaluations while stepped down').toEqual(stepped?.evaluations);
      expect(still?.steppedDown).toBe(1);
      expect(received().filter((n) => n.from === cut.name)).toHaveLength(sentBefore);

      cut.proxy.heal();
      await poll(
        async () => {
          const s = await scrape(cut);
          return s?.steppedDown === 0 && (s.held ?? 0) > 0;
        },
        `the healed instance to take shards again`,
        SETTLE_MS,
      );
      await poll(async () => (await readyz(cut)).status === 200, 'the healed instance to be ready', SETTLE_MS);
      await quiet(live, rule);
      expect(notified()).toEqual({ [`${rule} firing`]: 1 });
    },
    90_000,
  );
});
