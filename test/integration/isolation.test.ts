import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { firingAlerts } from '../../src/alerts/view.js';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import type { Fault } from '../../src/sim/world.js';
import { withDaemon, type Daemon } from '../helpers/daemon.js';
import { postText } from '../helpers/slack-receiver.js';
import { storedStates } from '../helpers/stored-states.js';

const BROKEN = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const CHANGES = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const RULE = 'my-validators';
const period = (nodeId: string) => ({ nodeId, txHash: `tx-${nodeId.slice(-6)}`, startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 });
// A body the contract forbids: a period without its nodeId, subnetId or timestamps.
const BROKEN_BODY = JSON.stringify({ validators: [{ txHash: 'x', validationStatus: 'active' }] });

describe('daemon: one broken node never blinds the rest of its rule', () => {
  /** Both nodes active; the daemon (on a fake clock) watching them every second; `faults` queued before it starts. */
  const daemon = (body: (d: Daemon & { a: App }) => Promise<void>, faults: Fault[] = []) =>
    withDaemon(
      {
        // One message per alert, so each can be read on its own.
        project: { nodeIds: [BROKEN, CHANGES], every: '1s', groupBy: ['alertname', 'node', 'entity'] },
        before: ({ sim }) => {
          for (const n of [BROKEN, CHANGES]) sim.world.setValidators('mainnet', n, [activeValidator(period(n))]);
          sim.world.faults.push(...faults);
        },
      },
      (d) => body(Object.assign(d, { a: d.app })),
    );

  async function metric(a: App, name: string): Promise<string> {
    const body = await (await fetch(`${a.url}/metrics`)).text();
    return body.split('\n').find((l) => l.startsWith(`${name}{rule="${RULE}"}`)) ?? `${name}: no sample`;
  }

  it('a change on one node is delivered while another answers a broken body; the broken one keeps its state, is named, and fires rule-failing until it answers', () =>
    daemon(async ({ a, sim, slack, ...d }) => {
      await d.until(async () => (await storedStates(a.store, RULE))[BROKEN] && (await storedStates(a.store, RULE))[CHANGES], 'the baseline of both nodes');
      const brokenBefore = (await storedStates(a.store, RULE))[BROKEN];

      // Both validations end: each node leaves the lists and is confirmed by its own lookup,
      // and the broken node's own lookup answers a body the contract forbids.
      sim.world.faults.push(...Array.from({ length: 200 }, () => ({ status: 200, body: BROKEN_BODY, pathIncludes: BROKEN })));
      sim.world.setValidators('mainnet', BROKEN, [completedValidator(period(BROKEN))]);
      sim.world.setValidators('mainnet', CHANGES, [completedValidator(period(CHANGES))]);

      const change = await d.until(() => slack.posts.find((p) => postText(p).includes(`${CHANGES} validation active → completed`)), 'the change of the healthy node');
      expect(postText(change)).not.toContain(BROKEN);
      expect(d.logs.join('')).toContain(`lookups failed for 1 entity (${BROKEN}); their state is kept, the rest was evaluated`);
      expect(d.logs.join('')).toContain(`data API /v1/networks/mainnet/validators/${BROKEN}: unexpected response: validators.0.nodeId`);

      const failing = await d.until(() => slack.posts.find((p) => postText(p).includes(`cannot see ${BROKEN}`)), 'rule-failing for the broken node');
      expect(postText(failing)).toContain(`rule \\"${RULE}\\" cannot see ${BROKEN}: its last 3 lookups failed (data API /v1/networks/mainnet/validators/${BROKEN}: unexpected response: validators.0.nodeId`);
      expect((await firingAlerts(a.store)).map((f) => [f.labels['alertname'], f.labels['entity']])).toEqual([['rule-failing', BROKEN]]);
      expect((await storedStates(a.store, RULE))[BROKEN]).toEqual(brokenBefore);
      expect(await metric(a, 'avawatch_rule_failing_entities')).toBe(`avawatch_rule_failing_entities{rule="${RULE}"} 1`);
      expect(await metric(a, 'avawatch_rule_evaluation_failures_total')).toBe(`avawatch_rule_evaluation_failures_total{rule="${RULE}"} 0`);
      expect(Number((await metric(a, 'avawatch_rule_entity_failures_total')).split(' ')[1])).toBeGreaterThanOrEqual(3);
      // Part of the rule still sees: the daemon is not reported blind.
      expect((await fetch(`${a.url}/readyz`)).status).toBe(200);
      // Nothing was said about the broken node itself: no false change.
      expect(slack.posts.filter((p) => postText(p).includes(`${BROKEN} validation`))).toEqual([]);

      sim.world.faults.length = 0;
      await d.until(() => slack.posts.find((p) => postText(p).includes(`sees ${BROKEN} again`)), 'rule-failing resolved');
      // Its own lookup answers: the end held back while it could not be confirmed is reported now.
      await d.until(() => slack.posts.find((p) => postText(p).includes(`${BROKEN} validation active → completed`)), "the broken node's change, once it answers");
      expect(await firingAlerts(a.store)).toEqual([]);
      expect(await metric(a, 'avawatch_rule_failing_entities')).toBe(`avawatch_rule_failing_entities{rule="${RULE}"} 0`);
    }));

  it('when every node of the rule fails, the evaluation fails as a whole', () =>
    daemon(async ({ a, sim, ...d }) => {
      await d.until(async () => (await storedStates(a.store, RULE))[CHANGES], 'the baseline');
      sim.world.faults.push(...Array.from({ length: 8 }, () => ({ status: 503 })));
      await d.until(async () => (await metric(a, 'avawatch_rule_evaluation_failures_total')).endsWith(' 1') || (await metric(a, 'avawatch_rule_evaluation_failures_total')).endsWith(' 2'), 'a failed evaluation');
      expect(await metric(a, 'avawatch_rule_entity_failures_total')).toBe(`avawatch_rule_entity_failures_total{rule="${RULE}"} 0`);
    }));

  it('a fresh daemon exports its counters at 0 before anything happened', () =>
    daemon(
      async ({ a }) => {
        const body = await (await fetch(`${a.url}/metrics`)).text();
        expect(body).toContain(`avawatch_rule_evaluation_failures_total{rule="${RULE}"} 0`);
        expect(body).toContain(`avawatch_rule_entity_failures_total{rule="${RULE}"} 0`);
        expect(body).toMatch(new RegExp(`avawatch_rule_evaluations_total\\{rule="${RULE}"\\} [01]`));
        expect(body).toContain('avawatch_notifications_total{receiver="ops-slack"} 0');
        expect(body).toContain('avawatch_notifications_failed_total{receiver="ops-slack",reason="timeout"} 0');
      },
      [{ status: 200, body: '{}', delayMs: 5_000 }],
    ));
});
