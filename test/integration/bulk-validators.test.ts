import { describe, expect, it } from 'vitest';
import type { App } from '../../src/app/app.js';
import { activeValidator } from '../../src/sim/samples.js';
import type { SimServer } from '../../src/sim/server.js';
import { postText } from '../helpers/slack-receiver.js';
import { withDaemon, type Daemon } from '../helpers/daemon.js';
import { testNodeId } from '../helpers/node-ids.js';
import { storedStates } from '../helpers/stored-states.js';

// Base58 has no 0: digits map to 1-9 and A.
const node = (i: number) => testNodeId(i);
const RULE = 'my-validators';
const nowS = Math.floor(Date.now() / 1000);
const period = (nodeId: string, tx = `tx-${nodeId.slice(-8)}`, uptimePerformance?: number) => ({
  nodeId,
  txHash: tx,
  startTimestamp: nowS - 86_400,
  endTimestamp: nowS + 30 * 86_400,
  ...(uptimePerformance === undefined ? {} : { uptimePerformance }),
});
/** What the daemon asked the simulator, split into the bulk lists and the nodes asked alone. */
const asked = (sim: SimServer, from = 0) => {
  const requests = sim.requests.slice(from).filter((r) => r.startsWith('GET /v1/networks/'));
  return { lists: requests.filter((r) => /\/validators\?/.test(r)), own: requests.filter((r) => /\/validators\/NodeID-/.test(r)) };
};

describe('daemon: validators read in bulk', () => {
  /** The daemon watching `nodeIds` every second, once the world is `setup` and every node has its baseline. */
  function bulk(nodeIds: string[], setup: (sim: SimServer) => void, body: (d: Daemon & { a: App }) => Promise<void>): Promise<void> {
    return withDaemon({ project: { nodeIds, every: '1s', groupBy: ['alertname', 'node', 'entity'] }, before: (d) => setup(d.sim) }, async (d) => {
      await d.until(async () => {
        const states = await storedStates(d.app.store, RULE);
        return nodeIds.every((n) => states[n]);
      }, 'the baseline of every node');
      await body(Object.assign(d, { a: d.app }));
    });
  }

  // From the registry /metrics renders: read at every step of fake time, rendering it costs too much.
  const evaluations = async (a: App) => (await a.metrics.ruleEvaluations.get()).values.find((v) => v.labels.rule === RULE)?.value ?? 0;
  async function cycles(d: Daemon, n: number): Promise<void> {
    const target = (await evaluations(d.app)) + n;
    await d.until(async () => (await evaluations(d.app)) >= target, `${n} more evaluations`, { within: 15_000 });
  }

  it('keeps only exact NodeID matches although the service matches substrings, and asks no node alone in steady state', () => {
    const watched = node(7);
    // Longer NodeIDs that contain the watched one: the list returns them too.
    const lookalikes = [`${watched}A`, `${watched}Bc`];
    const setup = (sim: SimServer) => {
      sim.world.setValidators('mainnet', watched, [activeValidator(period(watched))]);
      for (const l of lookalikes) sim.world.setValidators('mainnet', l, [activeValidator({ ...period(l), startTimestamp: nowS - 60 })]);
    };
    return bulk([watched], setup, async (d) => {
      const { a, sim, slack } = d;
      expect((await storedStates(a.store, RULE))[watched]).toMatchObject({ period: { txHash: period(watched).txHash, status: 'active' } });
      const from = sim.requests.length;
      // A lookalike ends and another starts a newer period: none of it is about the watched node.
      sim.world.setValidationStatus(lookalikes[0] as string, 'completed');
      await cycles(d, 3);
      expect(slack.posts).toEqual([]);
      expect((await storedStates(a.store, RULE))[watched]).toMatchObject({ period: { txHash: period(watched).txHash, status: 'active' } });
      const { lists, own } = asked(sim, from);
      expect(lists.some((r) => r.includes(`nodeIds=${watched}&`))).toBe(true);
      expect(own).toEqual([]);
    });
  });

  it('an active node with poor uptime is listed although the service applies a default minimum uptime', () => {
    const poor = node(1);
    const fine = node(2);
    const setup = (sim: SimServer) => {
      sim.world.bulkDefaultMinUptime = 90;
      sim.world.setValidators('mainnet', poor, [activeValidator(period(poor, undefined, 71.5))]);
      sim.world.setValidators('mainnet', fine, [activeValidator(period(fine))]);
    };
    return bulk([poor, fine], setup, async (d) => {
      const from = d.sim.requests.length;
      await cycles(d, 3);
      expect(asked(d.sim, from).own).toEqual([]);
      expect(d.slack.posts).toEqual([]);
    });
  });

  it('a node the lists leave out whose own lookup still says active is not reported; a real active → completed is reported once', () => {
    const [kept, ending] = [node(1), node(2)];
    const setup = (sim: SimServer) => {
      for (const n of [kept, ending]) sim.world.setValidators('mainnet', n, [activeValidator(period(n))]);
    };
    return bulk([kept, ending], setup, async (d) => {
      const { a, sim, slack } = d;
      // The active list leaves `kept` out for a while (an index behind, a filter).
      const withoutKept = JSON.stringify({ validators: [activeValidator(period(ending))] });
      sim.world.faults.push(...Array.from({ length: 5 }, () => ({ status: 200, body: withoutKept, pathMatches: '/validators$', query: 'validationStatus=active' })));
      let from = sim.requests.length;
      await d.until(() => sim.world.faults.length === 0, 'the lists that leave it out');
      await cycles(d, 2);
      expect(slack.posts).toEqual([]);
      expect((await storedStates(a.store, RULE))[kept]).toMatchObject({ period: { status: 'active' }, missing: false });
      expect(asked(sim, from).own.filter((r) => r.includes(kept)).length).toBeGreaterThanOrEqual(5);

      from = sim.requests.length;
      sim.world.setValidationStatus(ending, 'completed');
      const post = await d.until(() => slack.posts.find((p) => postText(p).includes(`${ending} validation active → completed`)), 'the end of its validation');
      expect(postText(post)).not.toContain(kept);
      await cycles(d, 4);
      expect(slack.posts.filter((p) => postText(p).includes(ending))).toHaveLength(1);
      // Confirmed by its own lookup once; after that it is only looked for in the lists.
      expect(asked(sim, from).own.filter((r) => r.includes(ending))).toHaveLength(1);
    });
  });

  it('a bulk page that fails fails only the nodes it covers; a change in another batch is delivered', () => {
    const nodes = Array.from({ length: 150 }, (_, i) => node(i));
    const setup = (sim: SimServer) => {
      for (const n of nodes) sim.world.setValidators('mainnet', n, [activeValidator(period(n))]);
    };
    return bulk(nodes, setup, async (d) => {
      const { a, sim, slack } = d;
      const sorted = [...nodes].sort();
      const [first, second] = [sorted.slice(0, 100), sorted.slice(100)];
      sim.world.faults.push(...Array.from({ length: 200 }, () => ({ status: 503, body: '{"message":"upstream down","statusCode":503,"error":"Service Unavailable"}', pathMatches: '/validators$', query: second[0] as string })));
      const changed = first[3] as string;
      sim.world.setValidationStatus(changed, 'completed');
      await d.until(() => slack.posts.find((p) => postText(p).includes(`${changed} validation active → completed`)), 'the change in the healthy batch');
      await d.until(async () => /avawatch_rule_failing_entities\{rule="my-validators"\} 50\b/.test(await (await fetch(`${a.url}/metrics`)).text()), 'the 50 nodes of the failing batch counted');
      const states = await storedStates(a.store, RULE);
      for (const n of second) expect(states[n]).toMatchObject({ period: { status: 'active' } });
      expect(slack.posts.filter((p) => second.some((n) => postText(p).includes(`${n} validation`)))).toEqual([]);
    });
  });

  it('an item whose startTimestamp is not a number fails its node only; the rest of its 100-node batch is evaluated and alerted on', () => {
    const nodes = Array.from({ length: 100 }, (_, i) => node(i));
    const setup = (sim: SimServer) => {
      for (const n of nodes) sim.world.setValidators('mainnet', n, [activeValidator(period(n))]);
    };
    return bulk(nodes, setup, async (d) => {
      const { a, sim, slack } = d;
      const [broken, changed] = [nodes[10] as string, nodes[20] as string];
      const before = (await storedStates(a.store, RULE))[broken];
      // The service sends one item the contract forbids, in the bulk list and in its own lookup.
      sim.world.setValidators('mainnet', broken, [{ ...activeValidator(period(broken)), startTimestamp: 'soon' }]);
      sim.world.setValidationStatus(changed, 'completed');
      await d.until(() => slack.posts.find((p) => postText(p).includes(`${changed} validation active → completed`)), 'the change of a node in the same batch');
      const failing = await d.until(() => slack.posts.find((p) => postText(p).includes(`cannot see ${broken}`)), 'rule-failing for the broken node');
      expect(postText(failing)).toMatch(new RegExp(`its last 3 lookups failed \\(data API /v1/networks/mainnet/validators: unexpected item validators\\[\\d+\\] of ${broken}: startTimestamp: Invalid input: expected number, received string\\)`));
      const metrics = await (await fetch(`${a.url}/metrics`)).text();
      expect(metrics).toMatch(/avawatch_rule_failing_entities\{rule="my-validators"\} 1\b/);
      expect(metrics).toMatch(/avawatch_rule_evaluation_failures_total\{rule="my-validators"\} 0\b/);
      expect(metrics).toMatch(/avawatch_api_invalid_items_total\{api="data",endpoint="\/v1\/networks\/\{network\}\/validators"\} [1-9]/);
      expect((await storedStates(a.store, RULE))[broken]).toEqual(before);
      expect(slack.posts.filter((p) => postText(p).includes(`${broken} validation`))).toEqual([]);
    });
  });
});
