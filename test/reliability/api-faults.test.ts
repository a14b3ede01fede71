import { describe, expect, it } from 'vitest';
import { firingAlerts } from '../../src/alerts/view.js';
import type { App } from '../../src/app/app.js';
import type { Fault } from '../../src/sim/world.js';
import { startDaemon, type Daemon } from '../helpers/daemon.js';
import type { SlackPost, SlackReceiver } from '../helpers/slack-receiver.js';
import { storedStates } from '../helpers/stored-states.js';

// Every way the Data API can fail, against a paginated kind (delegation-end) whose state a
// list cut short would corrupt. Past its baseline the rule reads the newest delegations
// until a page holds one it knows: two new ones (pageSize 1) make that a walk of three
// pages, which a fault hits part-way; a partial read would record only some of them. For
// each fault: no false alert, the state unchanged (the new ones not recorded), the
// failures counted, and after health.failingAfter (3) failures in a row the rule-failing
// alert, resolved once the fault clears, by a poll that records both new delegations.

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const RULE = 'delegations';
const PATH = '/v1/networks/mainnet/delegators';
const ADDRESS = 'avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw';
const RULES = `rules:
  - name: ${RULE}
    kind: delegation-end
    every: 1s
    severity: critical
    network: mainnet
    nodeIds: [${NODE}]
`;
type States = Record<string, unknown>;
const EXPIRED = JSON.stringify({ message: 'Page token has expired, restart from the first page', error: 'Bad Request', statusCode: 400 });

type Ctx = Daemon;

/**
 * A simulator with three delegations, a Slack receiver and the daemon past its baseline, on
 * a fake clock; torn down after the test.
 */
async function setup(onTestFinished: (fn: () => Promise<void>) => void): Promise<Ctx> {
  const d = await startDaemon({
    // pageSize 1: a poll reads three pages, so a fault can hit the walk part-way.
    project: { nodeIds: [], rules: { 'delegations.yaml': RULES }, api: 'pageSize: 1', timeout: '1s', retries: 1 },
    logLevel: process.env['RELIABILITY_LOG'] ?? 'silent',
    before: ({ sim }) => {
      const now = sim.world.clock.now();
      for (const n of [1, 2, 3]) {
        sim.world.addDelegation(
          'mainnet',
          { txHash: `d${n}-${'x'.repeat(40)}`, nodeId: NODE, rewardAddresses: [ADDRESS], amountDelegated: `${n}000000000000`, startTimestamp: now - n * 86_400, endTimestamp: now + 90 * 86_400 },
          'active',
        );
      }
    },
  });
  onTestFinished(() => d.stop());
  // The baseline: the three delegations and the baseline marker.
  await d.until(async () => Object.keys((await storedStates(d.app.store, RULE))).length === 4, 'the baseline poll');
  return d;
}

/**
 * Two active delegations newer than every one in `before` (so listed first): the next poll
 * reads them on pages 1 and 2 and stops at page 3, the newest one it knew. Returns the
 * state once they are recorded.
 */
function arrive({ sim }: Ctx, before: States, tag: string): States {
  const starts = Object.values(before).flatMap((st) => (typeof st === 'object' && st !== null && 'startTimestamp' in st ? [Number(st.startTimestamp)] : []));
  const newest = Math.max(...starts);
  const after: States = { ...before };
  for (const n of [1, 2]) {
    const input = {
      txHash: `${tag}${n}-${'y'.repeat(40)}`,
      nodeId: NODE,
      rewardAddresses: [ADDRESS],
      amountDelegated: `${n}500000000000`,
      startTimestamp: newest + n,
      endTimestamp: sim.world.clock.now() + 90 * 86_400,
    };
    sim.world.addDelegation('mainnet', input, 'active');
    after[input.txHash] = { nodeId: NODE, amount: input.amountDelegated, startTimestamp: input.startTimestamp, endTimestamp: input.endTimestamp, rewardAddresses: [ADDRESS] };
  }
  return after;
}

const counter = async (a: App, which: 'ruleEvaluations' | 'ruleFailures') => (await a.metrics[which].get()).values.find((v) => v.labels.rule === RULE)?.value ?? 0;
const apiAnswers = async (a: App, code: string) =>
  (await a.metrics.apiRequests.get()).values.filter((v) => v.labels.endpoint === '/v1/networks/{network}/delegators' && v.labels.code === code).reduce((n, v) => n + v.value, 0);

/** Waits for `n` more evaluations to finish (the one under way, if any, does not count). */
async function polls(d: Daemon, n: number): Promise<void> {
  const target = (await counter(d.app, 'ruleEvaluations')) + n + 1;
  await d.until(async () => (await counter(d.app, 'ruleEvaluations')) >= target, `${n} more polls`, { within: 15_000 });
}

/** What each Slack post was: the rule-failing alert, its resolution, or anything else (a false alert). */
const seen = (slack: SlackReceiver) =>
  slack.posts.map((p: SlackPost) =>
    blindText(p.body.text) ? 'blind' : recoveredText(p.body.text) ? 'recovered' : `FALSE ALERT: ${p.body.text}`,
  );

/** The rule's own failure says so in its own alert; the service's (down, slow, 429) in avawatch's one alert of that cause, naming the rule. */
const blindText = (text: string) => text.includes(`rule "${RULE}" is blind: its last 3 evaluations failed (`) || /avawatch cannot see: the data service .* since \d\d:\d\d UTC, 1 rule/.test(text);
const recoveredText = (text: string) => text.includes(`rule "${RULE}" evaluates again`) || text.includes('avawatch sees again: the data service answers, 1 rule evaluates again');

/**
 * The fault is in; the rule goes blind after exactly three failures (the post says so and
 * names the error) with nothing changed (`before`) and nothing else sent; `clear` (or the
 * faults running out) lets it recover, which resolves the alert and records what the
 * service lists (`after`), still with nothing else sent.
 */
async function blindThenRecovered(d: Ctx, { before, after }: { before: States; after: States }, error: string | RegExp, clear?: () => void): Promise<void> {
  const { app: a, slack } = d;
  const [blind] = await slack.waitForPosts(1, 30_000);
  expect(blindText(blind!.body.text)).toBe(true);
  // The error is in the summary (the rule's own) or in the details (a cause's alert): the whole post.
  const text = `${blind!.body.text}\n${JSON.stringify(blind!.body)}`;
  if (typeof error === 'string') expect(text).toContain(error);
  else expect(text).toMatch(error);
  expect(await storedStates(a.store, RULE)).toEqual(before);
  expect(await counter(a, 'ruleFailures')).toBeGreaterThanOrEqual(3);
  const metrics = await (await fetch(`${a.url}/metrics`)).text();
  const failures = Number(new RegExp(`avawatch_rule_evaluation_failures_total\\{rule="${RULE}"\\} (\\d+)`).exec(metrics)?.[1]);
  expect(failures).toBeGreaterThanOrEqual(3);
  expect((await firingAlerts(a.store)).map((f) => f.labels['alertname'])).toEqual(['rule-failing']);

  clear?.();
  await slack.waitForPosts(2, 30_000);
  await polls(d, 1);
  expect(seen(slack)).toEqual(['blind', 'recovered']);
  expect(await storedStates(a.store, RULE)).toEqual(after);
  expect(await firingAlerts(a.store)).toEqual([]);
  expect((await fetch(`${a.url}/readyz`)).status).toBe(200);
}

// Each test runs its own simulator, receiver and daemon, one after another: they share the fake clock.
describe('Data API faults: nothing false, nothing changed, counted, and blind after three', () => {
  const times = (n: number, f: Fault): Fault[] => Array.from({ length: n }, () => ({ ...f }));
  // Each evaluation makes two attempts (retries: 1) at a retryable fault, one at a permanent one.
  const onLaterPage = { pathIncludes: PATH, pageToken: true } as const;

  it('hung headers: the page that never answers fails the poll within api.timeout', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished);
    const before = await storedStates(c.app.store, RULE);
    c.sim.world.faults.push(...times(6, { status: 200, delayMs: 60_000, ...onLaterPage }));
    const after = arrive(c, before, 'n');
    await blindThenRecovered(c, { before, after }, `data API GET ${PATH}: no complete response within 1s`);
  }, 60_000);

  it('a trickled body, each chunk in time but the whole slower than api.timeout', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished);
    const before = await storedStates(c.app.store, RULE);
    // The real page, 16 bytes every 200 ms: no gap trips a body timeout, the whole takes seconds.
    c.sim.world.faults.push(...times(6, { status: 200, trickle: { chunkBytes: 16, intervalMs: 200 }, ...onLaterPage }));
    const after = arrive(c, before, 'n');
    await blindThenRecovered(c, { before, after }, `data API GET ${PATH}: no complete response within 1s`);
  }, 60_000);

  it('a 10 MB body, over api.maxResponseBytes', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished);
    const before = await storedStates(c.app.store, RULE);
    const huge = `{"delegators":[],"padding":"${'x'.repeat(10 * 1024 * 1024)}"}`;
    c.sim.world.faults.push(...times(3, { status: 200, body: huge, ...onLaterPage }));
    const after = arrive(c, before, 'n');
    await blindThenRecovered(c, { before, after }, `data API GET ${PATH}: response larger than 5242880 bytes`);
    expect(await apiAnswers(c.app, 'too_large')).toBe(3);
  }, 60_000);

  it('malformed JSON', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished);
    const before = await storedStates(c.app.store, RULE);
    c.sim.world.faults.push(...times(3, { status: 200, body: '{"delegators":[{"txHash":"d9","nodeId":', ...onLaterPage }));
    const after = arrive(c, before, 'n');
    await blindThenRecovered(c, { before, after }, `data API GET ${PATH}: HTTP 200 with a body that is not JSON`);
  }, 60_000);

  it('a schema violation (valid JSON, wrong shape)', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished);
    const before = await storedStates(c.app.store, RULE);
    // A page with a field of the wrong type: read loosely, it would record a delegation
    // without a node in place of the new one it stands for.
    c.sim.world.faults.push(...times(3, { status: 200, body: JSON.stringify({ delegators: [{ txHash: 42 }] }), ...onLaterPage }));
    const after = arrive(c, before, 'n');
    await blindThenRecovered(c, { before, after }, new RegExp(`data API ${PATH}: unexpected response: delegators\\.0\\.\\w+: `));
  }, 60_000);

  it('a burst of 503s', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished);
    const before = await storedStates(c.app.store, RULE);
    // Any page, the first included: it fails even a poll with nothing new to read.
    c.sim.world.faults.push(...times(10, { status: 503, pathIncludes: PATH }));
    await blindThenRecovered(c, { before, after: before }, `data API GET ${PATH}: HTTP 503: injected fault`);
    expect(await counter(c.app, 'ruleFailures')).toBe(5);
  }, 60_000);

  it('429 with Retry-After: one is waited out within the poll (no failure); a run of them blinds the rule, then it recovers', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished);
    const before = await storedStates(c.app.store, RULE);
    const limited = { status: 429, retryAfter: 1, body: '{"message":"Rate limit exceeded","statusCode":429}', ...onLaterPage };
    c.sim.world.faults.push({ ...limited });
    const waited = arrive(c, before, 'w');
    await c.until(async () => (await apiAnswers(c.app, '429')) === 1, 'the 429');
    await polls(c, 1);
    // The poll itself succeeds (it read the new delegations whole); only the tick it overran
    // while waiting (every: 1s) counts as held, and one held tick is far from rule-failing.
    expect(await counter(c.app, 'ruleFailures')).toBeLessThanOrEqual(1);
    expect(await counter(c.app, 'ruleEvaluations')).toBeGreaterThan(await counter(c.app, 'ruleFailures'));
    expect(c.slack.posts).toEqual([]);
    expect(await storedStates(c.app.store, RULE)).toEqual(waited);

    // Those are known now: two more make the next polls walk three pages again.
    c.sim.world.faults.push(...times(6, limited));
    const after = arrive(c, waited, 'n');
    await blindThenRecovered(c, { before: waited, after }, `data API GET ${PATH}: HTTP 429: Rate limit exceeded`);
  }, 60_000);

  it('a page token the service repeats stops the walk (no endless loop) and fails the poll', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished);
    const before = await storedStates(c.app.store, RULE);
    c.sim.world.settings.repeatPageToken = true;
    const after = arrive(c, before, 'n');
    await blindThenRecovered(c, { before, after }, /the service sent page token "[^"]+" a second time \(page 3\)/, () => {
      c.sim.world.settings.repeatPageToken = false;
    });
  }, 60_000);

  it('an expired page token restarts the walk at page one, which succeeds: no failure at all', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished);
    const before = await storedStates(c.app.store, RULE);
    c.sim.world.faults.push({ status: 400, body: EXPIRED, ...onLaterPage });
    const after = arrive(c, before, 'n');
    await c.until(async () => (await apiAnswers(c.app, '400')) === 1, 'the expired token');
    await polls(c, 1);
    expect(await counter(c.app, 'ruleFailures')).toBe(0);
    expect(c.slack.posts).toEqual([]);
    // The restarted walk read both new delegations.
    expect(await storedStates(c.app.store, RULE)).toEqual(after);
  }, 60_000);

  it('a service that refuses every page token: one restart, then the poll fails (no endless restarts)', async ({ onTestFinished }) => {
    const c = await setup(onTestFinished);
    const before = await storedStates(c.app.store, RULE);
    c.sim.world.settings.expirePageTokens = true;
    const after = arrive(c, before, 'n');
    await blindThenRecovered(c, { before, after }, `data API GET ${PATH}: HTTP 400: Page token has expired, restart from the first page`, () => {
      c.sim.world.settings.expirePageTokens = false;
    });
    // Each failed poll restarted once: page 2 refused, page 1 again, page 2 refused again (and
    // the poll under way when the tokens came back may have had one refusal, then succeeded).
    const failures = await counter(c.app, 'ruleFailures');
    expect(await apiAnswers(c.app, '400')).toBeGreaterThanOrEqual(2 * failures);
    expect(await apiAnswers(c.app, '400')).toBeLessThanOrEqual(2 * failures + 1);
  }, 60_000);
});
