import { describe, expect, it } from 'vitest';
import { shardOf } from '../../src/base/shard.js';
import { evaluatedElsewhere, heldByLog, holderOf, LEASE_MS, NODES, notified, notifiedOf, period, poll, quiet, readyz, received, RULE_SHARDS, RULES, scrape, scrapeAll, scrapeNow, SETTLE_MS, settled, shardChanges, SHARDS, SLACK_MS, startThree, TAKEOVER_MS, threeOnPostgres, world } from '../helpers/shared-three.js';

// Shared state (issue 43): three `avawatch run` processes on one config and one PostgreSQL
// database, the 256 shards spread between them, then one killed or paused. What an operator
// sees is asserted: each instance's /metrics, /readyz and JSON log, and the receiver all send to.
// The fixture, on the wall clock, is test/helpers/shared-three.ts (one file per fault family:
// they run side by side, each on its own cluster).

threeOnPostgres();

describe('shared state: three instances on one PostgreSQL', () => {
  it("spread: the 256 shards are split between the three, each is ready, and each rule is evaluated by exactly one of them, the holder of its node's shard", async () => {
    expect(RULES.map((r) => shardOf(NODES[r]))).toEqual(RULES.map((r) => RULE_SHARDS[r]));
    const live = await startThree('spread');
    const evaluators = await settled(live);

    expect(RULES.filter((r) => evaluators[r].length !== 1).map((r) => `${r} evaluated by [${evaluators[r].map((i) => i.name).join(', ')}]`)).toEqual([]);
    for (const rule of RULES) expect(heldByLog(holderOf(evaluators, rule)), `${rule}'s evaluator holds shard ${RULE_SHARDS[rule]} by its log`).toContain(RULE_SHARDS[rule]);
    const scrapes = await scrapeNow(live);
    // Each about 256/3, its log agreeing with its gauge; none stepped down.
    for (const [k, i] of live.entries()) {
      const held = scrapes[k]?.held ?? 0;
      expect(held, `${i.name}'s share`).toBeGreaterThanOrEqual(Math.floor(SHARDS / live.length / 2));
      expect(shardChanges(i).at(-1)?.held, `${i.name}'s last 'shards changed'`).toBe(held);
      expect(heldByLog(i).size, `${i.name}'s shards by its log`).toBe(held);
      expect(scrapes[k]?.steppedDown, `${i.name} stepped down`).toBe(0);
    }
    // Ready: each waited only for the rules it holds.
    await poll(async () => (await Promise.all(live.map(readyz))).every((r) => r.status === 200), 'all three ready', SETTLE_MS);
    expect(notified()).toEqual({});
  }, 60_000);

  it('kill -9 of a holder: another instance evaluates its rules within a lease and an interval; a change after the kill is notified exactly once', async () => {
    const live = await startThree('kill');
    const evaluators = await settled(live);
    const rule = RULES[0];
    const victim = holderOf(evaluators, rule);
    const victimRules = RULES.filter((r) => evaluators[r].includes(victim));
    const survivors = live.filter((i) => i !== victim);
    const before = await scrapeNow(survivors);

    await victim.daemon.kill();
    const killedAt = Date.now();
    // Each of the dead instance's rules moves to a survivor once its lease ends.
    for (const r of victimRules) await evaluatedElsewhere(survivors, before, r, TAKEOVER_MS - (Date.now() - killedAt));
    // And its shards with them: the two hold all 256.
    await poll(
      async () => (await scrapeAll(survivors))?.reduce((sum, s) => sum + (s.held ?? 0), 0) === SHARDS,
      `the survivors to hold the ${SHARDS} shards`,
      SETTLE_MS,
    );

    // The new holder loaded the shard's state: the change is news once, and nothing else is.
    world().setValidators('mainnet', NODES[rule], [period(rule, 'first', 2)]);
    await notifiedOf(`${rule} firing`);
    await quiet(survivors, rule);
    expect(notified()).toEqual({ [`${rule} firing`]: 1 });
  }, 90_000);

  it('SIGSTOP of a holder past its lease, then SIGCONT: the others notify the change once, the woken one adds nothing (its late commit refused), and it rejoins', async () => {
    const live = await startThree('pause');
    const evaluators = await settled(live);
    const rule = RULES[0];
    const paused = holderOf(evaluators, rule);
    const others = live.filter((i) => i !== paused);
    const before = await scrapeNow(others);

    // Stopped wherever it is: possibly inside a commit's transaction, its row locks held on the
    // server until it wakes. The others must not wait for it past a lease for all that.
    paused.daemon.child.kill('SIGSTOP');
    const stoppedAt = Date.now();
    await evaluatedElsewhere(others, before, rule, TAKEOVER_MS);
    // The change while it sleeps: the new holder fires it. The paused one's state still says
    // "not firing": were its commit let through on waking, it would fire the same transition.
    world().setValidators('mainnet', NODES[rule], [period(rule, 'first', 2)]);
    await notifiedOf(`${rule} firing`);
    // Paused two leases at least: its leases ended on the database's clock, whatever its own says.
    await poll(() => Date.now() - stoppedAt >= 2 * LEASE_MS, 'two leases since the pause', 2 * LEASE_MS + SLACK_MS);
    const changesBefore = shardChanges(paused).length;
    paused.daemon.child.kill('SIGCONT');

    // It finds the shard gone (its log says so), then takes a share again.
    await poll(
      () => shardChanges(paused).slice(changesBefore).some((c) => c.lost.includes(RULE_SHARDS[rule])),
      `the resumed instance to log the loss of shard ${RULE_SHARDS[rule]}`,
      LEASE_MS + SLACK_MS,
    );
    await poll(async () => ((await scrape(paused))?.held ?? 0) > 0, 'the resumed instance to hold shards again', SETTLE_MS);
    expect((await scrapeNow([paused]))[0]?.steppedDown).toBe(0);
    await quiet(live, rule);
    expect(notified()).toEqual({ [`${rule} firing`]: 1 });
    expect(received().map((n) => n.from)).not.toContain(paused.name);
  }, 90_000);
});
