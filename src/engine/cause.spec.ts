import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/errors.js';
import { NodeApiError } from '../api/node-api.js';
import { clockAt } from '../base/clock.js';
import type { LoadedRule } from '../config/load.js';
import { PRIMARY_NETWORK } from '../rules/fields.js';
import { SqliteStore, type StateStore } from '../store/index.js';
import { blindLines, causeCondition, causeOf, listedRules, type CauseRun } from './cause.js';
import type { Engine } from './engine.js';
import { engineWorld, target } from '../../test/helpers/engine-world.js';

const apiError = (status: number | undefined, code = String(status), extra: Partial<ApiError['details']> = {}) =>
  new ApiError(`data API GET /v1/x: ${status === undefined ? code : `HTTP ${status}`}`, { api: 'data', endpoint: '/v1/x', retryable: false, code, ...(status === undefined ? {} : { status }), ...extra });

describe('the cause of a failed evaluation', () => {
  it('the service down, refusing the key, rate-limiting, unreachable or slow is the data service; a bad request or a parse failure is the rule\'s own', () => {
    expect(causeOf(apiError(503))).toMatchObject({ key: 'data-service', labels: { source: 'data-service' }, what: 'the data service answers 503' });
    expect(causeOf(apiError(401))?.what).toBe('the data service refuses the API key (401)');
    expect(causeOf(apiError(429))?.what).toBe('the data service answers 429 (rate limited)');
    expect(causeOf(apiError(undefined, 'network_error', { network: 'connection closed' }))?.what).toBe('the data service cannot be reached (connection closed)');
    expect(causeOf(apiError(undefined, 'timeout'))?.what).toBe('the data service does not answer in time');
    expect(causeOf(new ApiError('metrics API GET /v2/x: HTTP 502', { api: 'metrics', endpoint: '/v2/x', status: 502, retryable: true, code: '502' }))).toMatchObject({ key: 'metrics-api', labels: { source: 'metrics-api' } });
    expect(causeOf(apiError(undefined, 'budget'))).toMatchObject({ key: 'budget:data', labels: { source: 'budget', api: 'data' }, what: "the Data API's compute-unit budget is spent for the day" });
    expect(causeOf(new NodeApiError('node 10.0.0.5:9650 health: network error: connection refused (ECONNREFUSED)', 'unreachable', '10.0.0.5:9650'))).toMatchObject({
      key: 'node-api:10.0.0.5:9650',
      labels: { source: 'node-api', node_api: '10.0.0.5:9650' },
      what: 'the node API at 10.0.0.5:9650 does not answer (network error: connection refused (ECONNREFUSED))',
    });
    // Wrapped (an expression's error keeps its cause): still the service.
    expect(causeOf(new Error('expression x: failed', { cause: apiError(503) }))?.key).toBe('data-service');
    for (const own of [apiError(400), apiError(404), apiError(200, 'too_large'), apiError(undefined, 'aborted'), new NodeApiError('node h:1 info.uptime: an answer that does not parse', 'invalid', 'h:1'), new Error('unexpected response: validators.0.nodeId')]) {
      expect(causeOf(own)).toBeUndefined();
    }
  });

  it('blind lines: one per cause listing its rules, then one per rule failing for its own reason', () => {
    const since = Date.parse('2026-03-01T15:27:10Z');
    const runs = [
      ...['b', 'a', 'c'].map((rule) => ({ rule, count: 3, since: since + 1000, error: 'data API GET /v1/x: HTTP 503', cause: causeOf(apiError(503)) })),
      { rule: 'own', count: 3, since, error: 'HTTP 400' },
    ];
    expect(blindLines(runs, (r) => `rule ${r.rule}: ${r.error}`)).toEqual(['the data service answers 503 since 15:27 UTC: 3 rules failing (a, b, c): data API GET /v1/x: HTTP 503', 'rule own: HTTP 400']);
  });
});

describe('the words of a cause, as the operator reads them', () => {
  it('names each way the data service or the Metrics API fails; a status under 500 other than 401, 403 and 429 is the rule\'s own', () => {
    expect(causeOf(apiError(undefined, 'rate_limited'))?.what).toBe('the data service asked us to pause (429)');
    expect(causeOf(apiError(403))?.what).toBe('the data service refuses the API key (403)');
    expect(causeOf(apiError(500))).toEqual({ key: 'data-service', labels: { source: 'data-service' }, subject: 'the data service', what: 'the data service answers 500' });
    expect(causeOf(apiError(499))).toBeUndefined();
    expect(causeOf(apiError(undefined, 'network_error'))?.what).toBe('the data service cannot be reached (network error)');
    expect(causeOf(new ApiError('metrics API GET /v2/x: HTTP 503', { api: 'metrics', endpoint: '/v2/x', status: 503, retryable: true, code: '503' }))).toEqual({
      key: 'metrics-api',
      labels: { source: 'metrics-api' },
      subject: 'the Metrics API',
      what: 'the Metrics API answers 503',
    });
    expect(causeOf(new ApiError('metrics API GET /v2/x: budget', { api: 'metrics', endpoint: '/v2/x', retryable: false, code: 'budget' }))).toEqual({
      key: 'budget:metrics',
      labels: { source: 'budget', api: 'metrics' },
      subject: "the Metrics API's compute-unit budget",
      what: "the Metrics API's compute-unit budget is spent for the day",
    });
    // Another API's failure (a node's, counted apart) is no outage of these services.
    expect(causeOf(new ApiError('node API GET /ext/health: HTTP 503', { api: 'node', endpoint: '/ext/health', status: 503, retryable: true, code: '503' }))).toBeUndefined();
  });

  it('a node API that does not answer is its own cause, with or without the words of why; one that answers wrongly or has no address is the rule\'s own', () => {
    expect(causeOf(new NodeApiError('connection refused', 'unreachable', '10.0.0.5:9650'))).toEqual({
      key: 'node-api:10.0.0.5:9650',
      labels: { source: 'node-api', node_api: '10.0.0.5:9650' },
      subject: 'the node API at 10.0.0.5:9650',
      what: 'the node API at 10.0.0.5:9650 does not answer',
    });
    expect(causeOf(new NodeApiError('node 10.0.0.5:9650 health: timeout', 'unreachable'))).toBeUndefined();
    for (const kind of ['off', 'rpc', 'too_large'] as const) expect(causeOf(new NodeApiError('node h:1 health: no', kind, 'h:1'))).toBeUndefined();
  });

  it('looks through two wrappings of an error for its cause, not further, and reads nothing from what is not an Error', () => {
    const wrap = (e: Error, times: number): Error => (times === 0 ? e : wrap(new Error(`wrapped ${times}`, { cause: e }), times - 1));
    expect(causeOf(wrap(apiError(503), 2))?.key).toBe('data-service');
    expect(causeOf(wrap(apiError(503), 3))).toBeUndefined();
    for (const thrown of [undefined, 'HTTP 503', { details: { api: 'data', status: 503 } }, new Error('x', { cause: 'HTTP 503' })]) expect(causeOf(thrown)).toBeUndefined();
  });
});

describe('the one alert of a cause', () => {
  const since = Date.parse('2026-03-01T15:27:10Z');
  const c503 = causeOf(apiError(503)) as NonNullable<ReturnType<typeof causeOf>>;
  const c502 = causeOf(apiError(502)) as NonNullable<ReturnType<typeof causeOf>>;
  const run = (rule: string, count: number, at: number, cause = c503): CauseRun => ({ rule, count, since: at, error: `data API GET /v1/x: HTTP ${cause === c503 ? 503 : 502}`, cause });

  it('says what most of its rules see, since the earliest of them, listing each rule with its failures and every rule it blinded so far', () => {
    const runs = [run('b', 4, since + 60_000, c502), run('a', 2, since + 120_000), run('c', 5, since)];
    expect(causeCondition(runs, ['z-recovered', 'a'], 'critical')).toEqual({
      key: 'cannot-see:data-service',
      subject: 'the data service',
      severity: 'critical',
      summary: 'avawatch cannot see: the data service answers 503 since 15:27 UTC, 3 rules',
      resolvedSummary: 'avawatch sees again: the data service answers, 4 rules evaluate again',
      resolvedDetails: { Rules: 'a, b, c, z-recovered' },
      labels: { alertname: 'rule-failing', rule: 'avawatch', source: 'data-service', severity: 'critical' },
      details: {
        Cause: 'the data service answers 503',
        Rules: 'a (2 failed), b (4 failed), c (5 failed)',
        'All rules it blinded': 'a, b, c, z-recovered',
        Error: 'data API GET /v1/x: HTTP 503',
        'Failing since': '2026-03-01T15:27:10.000Z',
      },
    });
  });

  it('one rule: "1 rule", "evaluates again"; a tie of wordings takes the first rule\'s', () => {
    const c = causeCondition([run('b', 2, since + 3_600_000, c502), run('a', 3, since + 7_200_000)].slice(0, 1), [], 'warning');
    expect(c.summary).toBe('avawatch cannot see: the data service answers 502 since 16:27 UTC, 1 rule');
    expect(c.resolvedSummary).toBe('avawatch sees again: the data service answers, 1 rule evaluates again');
    const tie = causeCondition([run('b', 2, since, c502), run('a', 3, since)], [], 'warning');
    expect(tie.details).toMatchObject({ Cause: 'the data service answers 502', Error: 'data API GET /v1/x: HTTP 502' });
    expect(tie.summary).toBe('avawatch cannot see: the data service answers 502 since 15:27 UTC, 2 rules');
  });

  it('a cause with no failing rule has no alert', () => {
    expect(() => causeCondition([], ['a'], 'warning')).toThrow('a cause with no failing rule has no alert');
  });

  it('the rules it listed read back from the alert: none from no alert or an empty list', () => {
    expect(listedRules(causeCondition([run('b', 2, since), run('a', 2, since)], ['old'], 'warning'))).toEqual(['a', 'b', 'old']);
    expect(listedRules(undefined)).toEqual([]);
    const empty = causeCondition([run('a', 2, since)], [], 'warning');
    expect(listedRules({ ...empty, details: { ...empty.details, 'All rules it blinded': '' } })).toEqual([]);
    expect(listedRules({ ...empty, details: {} })).toEqual([]);
  });
});

describe('blind lines', () => {
  const since = Date.parse('2026-03-01T15:27:10Z');
  const fail = (rule: string, at: number, err: ApiError | undefined) => ({ rule, count: 2, since: at, error: err?.message ?? 'HTTP 400', cause: err && causeOf(err) });

  it('each cause its own line, in the order first seen, since its earliest rule, with its most common error; one rule is "1 rule"', () => {
    const runs = [
      fail('late', since + 3_600_000, apiError(503)),
      fail('own', since, undefined),
      fail('metrics', since + 60_000, new ApiError('metrics API GET /v2/x: HTTP 502', { api: 'metrics', endpoint: '/v2/x', status: 502, retryable: true, code: '502' })),
      fail('early', since + 7_200_000, apiError(502)),
      fail('earliest', since - 3_600_000, apiError(503)),
    ];
    expect(blindLines(runs, (r) => `rule ${r.rule}: ${r.error}`)).toEqual([
      'the data service answers 503 since 14:27 UTC: 3 rules failing (earliest, early, late): data API GET /v1/x: HTTP 503',
      'the Metrics API answers 502 since 15:28 UTC: 1 rule failing (metrics): metrics API GET /v2/x: HTTP 502',
      'rule own: HTTP 400',
    ]);
  });

  it('names at most 8 rules of a cause, then "…"; the count is of them all', () => {
    const nine = Array.from({ length: 9 }, (_, i) => fail(`r${i + 1}`, since, apiError(503)));
    expect(blindLines(nine, () => 'never')).toEqual(['the data service answers 503 since 15:27 UTC: 9 rules failing (r1, r2, r3, r4, r5, r6, r7, r8, …): data API GET /v1/x: HTTP 503']);
    expect(blindLines(nine.slice(1), () => 'never')).toEqual(['the data service answers 503 since 15:27 UTC: 8 rules failing (r2, r3, r4, r5, r6, r7, r8, r9): data API GET /v1/x: HTTP 503']);
  });
});

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const C = 'NodeID-GWPcbFJZFfZreETSoWjPimr846mXEKCtu';
const ruleOf = (name: string, node: string) =>
  ({ name, kind: 'validator-status', severity: 'critical', schedule: { everyMs: 60_000 }, spec: { network: 'mainnet', nodeIds: [node], subnetId: PRIMARY_NETWORK }, file: 'rules.yaml', line: 1, col: 1 }) as unknown as LoadedRule;

/** An engine over `store` (the engine world), each node active unless `world` fails it, on the clock `now()`. */
function engineOn(store: StateStore, world: Record<string, Error | undefined>, now: () => number, configured?: () => string[], targetsFor?: (rule: LoadedRule) => string[]): Engine {
  return engineWorld({
    store,
    world,
    unlisted: 'active',
    clock: clockAt(now),
    redact: (t: string) => t,
    ...(configured ? { configured } : {}),
    ...(targetsFor ? { targetsFor: (rule: LoadedRule) => targetsFor(rule).map((receiver) => target(receiver)) } : {}),
  }).engine;
}

describe('engine: rules failing for one cause share one alert', () => {
  it('goes to the receivers its rules name when the route tree sends it nowhere (every rule names its own, the root none)', async () => {
    const store = SqliteStore.open(':memory:');
    const world: Record<string, Error | undefined> = {};
    const now = Date.parse('2026-03-01T15:27:00Z');
    // As resolveRoutes: a rule's own receivers, else the tree's (none here).
    const engine = engineOn(store, world, () => now, undefined, (rule) => [...(rule.receivers ?? [])]);
    const [r1, r2] = [{ ...ruleOf('r1', A), receivers: ['pager'] }, { ...ruleOf('r2', B), receivers: ['team'] }] as LoadedRule[];
    world[A] = world[B] = apiError(503);
    for (let i = 0; i < 2; i++) for (const r of [r1!, r2!]) await engine.evaluate(r, new AbortController().signal).catch(() => undefined);
    const rows = (await store.outbox('pending')).filter((row) => row.summary.startsWith('avawatch cannot see'));
    expect(rows.map((row) => row.receiver).sort()).toEqual(['pager', 'team']);
  });


  it('fires once at the threshold, lists every rule failing for it, says nothing as rules join or recover, and resolves once when the last evaluates again', async () => {
    const store = SqliteStore.open(':memory:');
    const world: Record<string, Error | undefined> = {};
    let now = Date.parse('2026-03-01T15:27:00Z');
    const engine = engineOn(store, world, () => now);
    const [r1, r2, own] = [ruleOf('r1', A), ruleOf('r2', B), ruleOf('own', C)];
    const run = (r: LoadedRule) => engine.evaluate(r, new AbortController().signal).catch(() => undefined);
    const sent = async () => (await store.outbox('pending')).sort((x, y) => x.id - y.id).map((row) => row.summary);
    for (const r of [r1, r2, own]) await run(r);
    expect(await sent()).toEqual([]);

    world[A] = world[B] = apiError(503);
    world[C] = apiError(400);
    await run(r1);
    await run(r2);
    await run(own);
    now += 60_000;
    expect(await sent()).toEqual([]); // one failure each: below failingAfter
    await run(r1); // r1's second: the cause fires, naming both rules
    await run(r2); // r2's second: it was listed already; nothing new is said
    await run(own); // a rule's own failure: its own alert, as before
    expect((await sent()).sort()).toEqual([
      'avawatch cannot see: the data service answers 503 since 15:27 UTC, 2 rules',
      'rule "own" is blind: its last 2 evaluations failed (data API GET /v1/x: HTTP 400)',
    ]);
    const [alert] = (await store.activeAlerts()).filter((a) => a.rule === '!cannot-see:data-service');
    expect(alert?.condition).toMatchObject({ key: 'cannot-see:data-service', labels: { alertname: 'rule-failing', rule: 'avawatch', source: 'data-service', severity: 'warning' }, details: { Rules: 'r1 (2 failed), r2 (2 failed)' } });

    world[A] = undefined;
    await run(r1); // r1 sees again while r2 does not: the details change, nothing is sent
    await run(r2);
    expect(await sent()).toHaveLength(2);
    expect((await store.activeAlerts()).find((a) => a.rule === '!cannot-see:data-service')?.condition).toMatchObject({ details: { Rules: 'r2 (3 failed)' } });

    world[B] = undefined;
    await run(r2);
    expect((await sent()).slice(2)).toEqual(['avawatch sees again: the data service answers, 2 rules evaluate again']);
    expect((await store.activeAlerts()).map((a) => a.rule)).toEqual(['!rule-failing:own']);
  });

  it('a restart mid-outage keeps the alert: its rules are waited for, not read as recovered, and it resolves once', async () => {
    const store = SqliteStore.open(':memory:');
    const world: Record<string, Error | undefined> = { [A]: apiError(503), [B]: apiError(503) };
    const now = Date.parse('2026-03-01T15:27:00Z');
    const [r1, r2, other] = [ruleOf('r1', A), ruleOf('r2', B), ruleOf('other', C)];
    const before = engineOn(store, world, () => now);
    for (let i = 0; i < 2; i++) for (const r of [r1, r2]) await before.evaluate(r, new AbortController().signal).catch(() => undefined);
    const sent = async () => (await store.outbox('pending')).sort((x, y) => x.id - y.id).map((row) => row.summary);
    expect(await sent()).toEqual(['avawatch cannot see: the data service answers 503 since 15:27 UTC, 2 rules']);

    // Restarted: the failure counts are gone; the alert is in the state file.
    const after = engineOn(store, world, () => now);
    for (const r of [r1, r2, other]) await after.restore(r);
    const run = (r: LoadedRule) => after.evaluate(r, new AbortController().signal).catch(() => undefined);
    await run(other); // another rule, fine: says nothing of r1 and r2
    await run(r1); // still failing, once since the restart: the alert stands, nothing is said
    expect(await sent()).toHaveLength(1);
    expect((await store.activeAlerts()).map((a) => a.rule)).toEqual(['!cannot-see:data-service']);
    world[A] = world[B] = undefined;
    await run(r1);
    expect(await sent()).toHaveLength(1); // r2 has not evaluated since the restart
    await run(r2);
    expect((await sent()).slice(1)).toEqual(['avawatch sees again: the data service answers, 2 rules evaluate again']);
    expect(await store.activeAlerts()).toEqual([]);
  });

  it('`once` beside the daemon, one rule fine again: the daemon\'s alert stands until every configured rule it listed evaluates again', async () => {
    const store = SqliteStore.open(':memory:');
    const world: Record<string, Error | undefined> = { [A]: apiError(503), [B]: apiError(503) };
    const now = Date.parse('2026-03-01T15:27:00Z');
    const [r1, r2] = [ruleOf('r1', A), ruleOf('r2', B)];
    const daemon = engineOn(store, world, () => now);
    for (let i = 0; i < 2; i++) for (const r of [r1, r2]) await daemon.evaluate(r, new AbortController().signal).catch(() => undefined);
    world[A] = undefined;
    // Another process: nothing restored, the config's rules known.
    const once = engineOn(store, world, () => now, () => ['r1', 'r2']);
    await once.evaluate(r1, new AbortController().signal);
    expect((await store.activeAlerts()).map((a) => a.rule)).toEqual(['!cannot-see:data-service']);
    expect((await store.outbox('pending')).map((row) => row.summary)).toEqual(['avawatch cannot see: the data service answers 503 since 15:27 UTC, 2 rules']);
  });
});
