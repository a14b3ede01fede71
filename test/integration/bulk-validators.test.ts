import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app/app.js';
import { activeValidator } from '../../src/sim/samples.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { writeProject, type TempProject } from '../helpers/harness.js';
import { postText, startSlackReceiver, type SlackReceiver } from '../helpers/slack-receiver.js';
import { waitUntil } from '../helpers/wait.js';
import { captureStderr, startApp } from '../helpers/app.js';
import { testNodeId } from '../helpers/node-ids.js';

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
  let sim: SimServer;
  let slack: SlackReceiver;
  let project: TempProject | undefined;
  let app: App | undefined;

  beforeEach(async () => {
    sim = await startSim();
    slack = await startSlackReceiver();
    captureStderr();
  });

  afterEach(async () => {
    await app?.stop();
    app = undefined;
    vi.restoreAllMocks();
    await sim.close();
    await slack.close();
    project?.cleanup();
  });

  async function start(nodeIds: string[]): Promise<App> {
    project = writeProject({ dataUrl: sim.url, webhookUrl: slack.webhookUrl, nodeIds, every: '1s', groupBy: ['alertname', 'node', 'entity'] });
    app = await startApp(project.configFile);
    const a = app;
    await waitUntil(() => nodeIds.every((n) => a.store.loadStates(RULE)[n]), 'the baseline of every node');
    return a;
  }

  const evaluations = async (a: App) => Number(/avawatch_rule_evaluations_total\{rule="my-validators"\} (\d+)/.exec(await (await fetch(`${a.url}/metrics`)).text())?.[1] ?? 0);
  async function cycles(a: App, n: number): Promise<void> {
    const target = (await evaluations(a)) + n;
    await waitUntil(async () => (await evaluations(a)) >= target, `${n} more evaluations`, 15_000);
  }

  it('keeps only exact NodeID matches although the service matches substrings, and asks no node alone in steady state', async () => {
    const watched = node(7);
    // Longer NodeIDs that contain the watched one: the list returns them too.
    const lookalikes = [`${watched}A`, `${watched}Bc`];
    sim.world.setValidators('mainnet', watched, [activeValidator(period(watched))]);
    for (const l of lookalikes) sim.world.setValidators('mainnet', l, [activeValidator({ ...period(l), startTimestamp: nowS - 60 })]);
    const a = await start([watched]);
    expect(a.store.loadStates(RULE)[watched]).toMatchObject({ period: { txHash: period(watched).txHash, status: 'active' } });
    const from = sim.requests.length;
    // A lookalike ends and another starts a newer period: none of it is about the watched node.
    sim.world.setValidationStatus(lookalikes[0] as string, 'completed');
    await cycles(a, 3);
    expect(slack.posts).toEqual([]);
    expect(a.store.loadStates(RULE)[watched]).toMatchObject({ period: { txHash: period(watched).txHash, status: 'active' } });
    const { lists, own } = asked(sim, from);
    expect(lists.some((r) => r.includes(`nodeIds=${watched}&`))).toBe(true);
    expect(own).toEqual([]);
  });

  it('an active node with poor uptime is listed although the service applies a default minimum uptime', async () => {
    const poor = node(1);
    const fine = node(2);
    sim.world.bulkDefaultMinUptime = 90;
    sim.world.setValidators('mainnet', poor, [activeValidator(period(poor, undefined, 71.5))]);
    sim.world.setValidators('mainnet', fine, [activeValidator(period(fine))]);
    const a = await start([poor, fine]);
    const from = sim.requests.length;
    await cycles(a, 3);
    expect(asked(sim, from).own).toEqual([]);
    expect(slack.posts).toEqual([]);
  });

  it('a node the lists leave out whose own lookup still says active is not reported; a real active → completed is reported once', async () => {
    const [kept, ending] = [node(1), node(2)];
    for (const n of [kept, ending]) sim.world.setValidators('mainnet', n, [activeValidator(period(n))]);
    const a = await start([kept, ending]);
    // The active list leaves `kept` out for a while (an index behind, a filter).
    const withoutKept = JSON.stringify({ validators: [activeValidator(period(ending))] });
    sim.world.faults.push(...Array.from({ length: 5 }, () => ({ status: 200, body: withoutKept, pathMatches: '/validators$', query: 'validationStatus=active' })));
    let from = sim.requests.length;
    await waitUntil(() => sim.world.faults.length === 0, 'the lists that leave it out');
    await cycles(a, 2);
    expect(slack.posts).toEqual([]);
    expect(a.store.loadStates(RULE)[kept]).toMatchObject({ period: { status: 'active' }, missing: false });
    expect(asked(sim, from).own.filter((r) => r.includes(kept)).length).toBeGreaterThanOrEqual(5);

    from = sim.requests.length;
    sim.world.setValidationStatus(ending, 'completed');
    const post = await waitUntil(() => slack.posts.find((p) => postText(p).includes(`${ending} validation active → completed`)), 'the end of its validation');
    expect(postText(post)).not.toContain(kept);
    await cycles(a, 4);
    expect(slack.posts.filter((p) => postText(p).includes(ending))).toHaveLength(1);
    // Confirmed by its own lookup once; after that it is only looked for in the lists.
    expect(asked(sim, from).own.filter((r) => r.includes(ending))).toHaveLength(1);
  });

  it('a bulk page that fails fails only the nodes it covers; a change in another batch is delivered', async () => {
    const nodes = Array.from({ length: 150 }, (_, i) => node(i));
    for (const n of nodes) sim.world.setValidators('mainnet', n, [activeValidator(period(n))]);
    const a = await start(nodes);
    const sorted = [...nodes].sort();
    const [first, second] = [sorted.slice(0, 100), sorted.slice(100)];
    sim.world.faults.push(...Array.from({ length: 200 }, () => ({ status: 503, body: '{"message":"upstream down","statusCode":503,"error":"Service Unavailable"}', pathMatches: '/validators$', query: second[0] as string })));
    const changed = first[3] as string;
    sim.world.setValidationStatus(changed, 'completed');
    await waitUntil(() => slack.posts.find((p) => postText(p).includes(`${changed} validation active → completed`)), 'the change in the healthy batch');
    await waitUntil(async () => /avawatch_rule_failing_entities\{rule="my-validators"\} 50\b/.test(await (await fetch(`${a.url}/metrics`)).text()), 'the 50 nodes of the failing batch counted');
    const states = a.store.loadStates(RULE);
    for (const n of second) expect(states[n]).toMatchObject({ period: { status: 'active' } });
    expect(slack.posts.filter((p) => second.some((n) => postText(p).includes(`${n} validation`)))).toEqual([]);
  });

  it('an item whose startTimestamp is not a number fails its node only; the rest of its 100-node batch is evaluated and alerted on', async () => {
    const nodes = Array.from({ length: 100 }, (_, i) => node(i));
    for (const n of nodes) sim.world.setValidators('mainnet', n, [activeValidator(period(n))]);
    const a = await start(nodes);
    const [broken, changed] = [nodes[10] as string, nodes[20] as string];
    const before = a.store.loadStates(RULE)[broken];
    // The service sends one item the contract forbids, in the bulk list and in its own lookup.
    sim.world.setValidators('mainnet', broken, [{ ...activeValidator(period(broken)), startTimestamp: 'soon' }]);
    sim.world.setValidationStatus(changed, 'completed');
    await waitUntil(() => slack.posts.find((p) => postText(p).includes(`${changed} validation active → completed`)), 'the change of a node in the same batch');
    const failing = await waitUntil(() => slack.posts.find((p) => postText(p).includes(`cannot see ${broken}`)), 'rule-failing for the broken node');
    expect(postText(failing)).toMatch(new RegExp(`its last 3 lookups failed \\(data API /v1/networks/mainnet/validators: unexpected item validators\\[\\d+\\] of ${broken}: startTimestamp: Invalid input: expected number, received string\\)`));
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    expect(metrics).toMatch(/avawatch_rule_failing_entities\{rule="my-validators"\} 1\b/);
    expect(metrics).toMatch(/avawatch_rule_evaluation_failures_total\{rule="my-validators"\} 0\b/);
    expect(metrics).toMatch(/avawatch_api_invalid_items_total\{api="data",endpoint="\/v1\/networks\/\{network\}\/validators"\} [1-9]/);
    expect(a.store.loadStates(RULE)[broken]).toEqual(before);
    expect(slack.posts.filter((p) => postText(p).includes(`${broken} validation`))).toEqual([]);
  });
});
