import { describe, expect, it } from 'vitest';
import type { LoadedRule } from '../config/load.js';
import { PRIMARY_NETWORK } from '../rules/fields.js';
import type { StateStore } from '../store/index.js';
import { configSchema } from '../config/schema.js';
import { resolveRoutes } from '../alerts/route.js';
import { errorText } from './engine.js';
import { severityOf } from '../alerts/pipeline/enrich.js';
import type { PipelineOptions } from '../../test/helpers/engine-world.js';
import { systemClock, clockAt } from '../base/clock.js';
import { spec as validationEndSpec } from '../rules/validation-end/schema.js';
import { engineWorld, target } from '../../test/helpers/engine-world.js';
import { storedStates } from '../../test/helpers/stored-states.js';

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const rule = {
  name: 'r',
  kind: 'validator-status',
  severity: 'critical',
  schedule: { everyMs: 60_000 },
  spec: { network: 'mainnet', nodeIds: [A, B], subnetId: PRIMARY_NETWORK },
  file: 'rules.yaml',
  line: 1,
  col: 1,
  locate: () => ({ file: 'rules.yaml', line: 1, col: 1, path: [], message: '' }),
} as unknown as LoadedRule;

/**
 * The engine world of the engine's specs (test/helpers/engine-world.ts): an Error is a node the
 * lists leave out and whose own lookup fails; the lists fail when all of theirs do.
 */
function setup(world: Record<string, string | Error>, targetsFor: NonNullable<PipelineOptions['targetsFor']> = () => [target('slack')], now?: () => Date, evaluated: LoadedRule = rule) {
  const w = engineWorld({ world, targetsFor, clock: now ? clockAt(() => now().getTime()) : systemClock });
  return { store: w.store, engine: w.engine, logs: w.logs, run: () => w.run(evaluated) };
}

describe('engine: fetch → evaluate → commit', () => {
  it('commits the baseline silently, then one alert per change, queued for its receiver', async () => {
    const world: Record<string, string | Error> = { [A]: 'active', [B]: 'active' };
    const { store, run } = setup(world);
    expect(await run()).toEqual([]);
    world[A] = 'completed';
    const [alert, ...rest] = await run();
    expect(rest).toEqual([]);
    expect(alert?.summary).toBe(`${A} validation active → completed`);
    expect((await store.outbox('pending')).map((r) => r.receiver)).toEqual(['slack']);
    // An event has no condition key on its row.
    expect((await store.claimDue('slack', Number.MAX_SAFE_INTEGER, 10, 1)).map((r) => r.message.conditionKey)).toEqual([undefined]);
  });

  it('a failed lookup keeps that node as it was; rule-failing names it after failingAfter, and resolves when it answers', async () => {
    const world: Record<string, string | Error> = { [A]: 'active', [B]: 'active' };
    const { store, run, logs } = setup(world);
    await run();
    world[A] = new Error('data API GET …/NodeID-7X: HTTP 503');
    world[B] = 'completed';
    expect((await run()).map((a) => a.summary)).toEqual([`${B} validation active → completed`]);
    expect(logs).toContain(`lookups failed for 1 entity (${A}); their state is kept, the rest was evaluated`);
    await run();
    expect((await store.activeAlerts()).map((a) => `${a.rule} ${a.key}`)).toEqual([`!rule-failing:r entity:${A}`]);
    expect((await storedStates(store, 'r'))[A]).toEqual({ period: { txHash: `tx-${A}`, status: 'active', startTimestamp: 1, endTimestamp: 2 }, missing: false });
    world[A] = 'active';
    await run();
    expect(await store.activeAlerts()).toEqual([]);
  });

  describe('a receiver that forgets a firing alert it stops hearing of (Alertmanager\'s resendInterval)', () => {
    const HOUR = 3_600_000;
    const targets: NonNullable<PipelineOptions['targetsFor']> = () => [
      { receiver: 'am', groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0, repeatMs: 4 * HOUR, resendMs: 60_000, muteTimeIntervals: [] },
      { receiver: 'slack', groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0, repeatMs: 4 * HOUR, muteTimeIntervals: [] },
    ];
    /** The outbox rows queued since the last look, by receiver, reminders marked (claimed, so each is seen once). */
    const queued = async (store: StateStore) =>
      (
        await Promise.all(['am', 'slack'].map(async (receiver) => (await store.claimDue(receiver, Number.MAX_SAFE_INTEGER, 100, 1)).map((r) => `${receiver} ${r.message.status}${r.message.details['Reminder'] ? ' reminder' : ''}`)))
      ).flat();

    it('hears of it again at the first evaluation a resend interval after its last; the others wait for their repeat', async () => {
      const world: Record<string, string | Error> = { [A]: 'active', [B]: 'active' };
      let now = Date.UTC(2026, 10, 26, 12);
      const { store, run } = setup(world, targets, () => new Date(now));
      await run();
      world[A] = new Error('data API GET …/NodeID-7X: HTTP 503');
      await run();
      await run(); // A's lookup failed twice: rule-failing fires, to both
      expect(await queued(store)).toEqual(['am firing', 'slack firing']);
      now += 30_000;
      await run();
      expect(await queued(store)).toEqual([]);
      now += 31_000;
      await run();
      expect(await queued(store)).toEqual(['am firing reminder']);
      now += 30_000;
      await run();
      expect(await queued(store)).toEqual([]);
    });

    it('hears of it from evaluations that fail too: a failed poll is no resolution', async () => {
      const world: Record<string, string | Error> = { [A]: 'active', [B]: 'active' };
      let now = Date.UTC(2026, 10, 26, 12);
      const { store, run } = setup(world, targets, () => new Date(now));
      await run();
      world[A] = new Error('data API GET …/NodeID-7X: HTTP 503');
      await run();
      await run();
      expect(await queued(store)).toEqual(['am firing', 'slack firing']);
      world[B] = new Error('data API GET …/NodeID-MF: HTTP 503'); // every lookup fails: the evaluation fails
      now += 61_000;
      await expect(run()).rejects.toThrow('HTTP 503');
      expect(await queued(store)).toEqual(['am firing reminder']);
    });
  });

  it('`for:` counts a poll within half the rule\'s interval: `for: 2m` polled every minute fires at the 3rd failing poll, though the 1st was stamped late', async () => {
    // validation-end: a period that ended (at 2 s past the epoch) with no new one is a condition.
    const ending = { ...rule, name: 'end', kind: 'validation-end', for: 120_000, spec: validationEndSpec.parse({ network: 'mainnet', nodeIds: [A] }) } as unknown as LoadedRule;
    let now = Date.UTC(2026, 10, 26, 12, 0, 0, 230);
    const { run } = setup({ [A]: 'active' }, undefined, () => new Date(now), ending);
    const fired: string[][] = [];
    for (let poll = 0; poll < 4; poll++) {
      fired.push((await run()).map((a) => `${a.status} ${a.summary}`));
      now = Date.UTC(2026, 10, 26, 12, poll + 1);
    }
    expect(fired).toEqual([[], [], [expect.stringMatching(/^firing .*validation ended/)], []]);
  });

  it('a critical waits 0.8 s from when its poll began, not from its commit: a slow answer does not add to it', async () => {
    let now = Date.UTC(2026, 10, 26, 12);
    let answerTakes = 0;
    const nodes: Record<string, string | Error> = { [A]: 'active', [B]: 'active' };
    // The service answers after `answerTakes` ms.
    const world = new Proxy(nodes, { get: (w, key) => ((now += answerTakes), (answerTakes = 0), Reflect.get(w, key)) });
    const grouped: NonNullable<PipelineOptions['targetsFor']> = () => [{ receiver: 'slack', groupKey: 'g', groupWaitMs: 60_000, groupIntervalMs: 300_000, repeatMs: 0, muteTimeIntervals: [] }];
    const { store, run } = setup(world, grouped, () => new Date(now));
    await run();
    nodes[A] = 'removed';
    const started = now;
    answerTakes = 700;
    expect((await run()).map((a) => a.severity)).toEqual(['critical']);
    expect(now).toBe(started + 700);
    expect(await store.nextDue('slack')).toBe(started + 800);
  });

  it('what a failed lookup said is kept for once --json scrubbed, as the log has it', async () => {
    const world: Record<string, string | Error> = { [A]: 'active', [B]: new Error('502 Bad Gateway: x-glacier-api-key: gk-secret-key') };
    const { engine, run } = setup(world);
    await run();
    expect(engine.view('r')?.failed).toEqual({ [B]: '502 Bad Gateway: x-glacier-api-key: [REDACTED]' });
  });

  it('reads states another process (or an older avawatch) wrote, in its own key order; a poll that changes nothing leaves them, a change is reported once', async () => {
    const world: Record<string, string | Error> = { [A]: 'active', [B]: 'active' };
    const { store, run } = setup(world);
    const stored = (node: string) => ({ missing: false, period: { endTimestamp: 2, startTimestamp: 1, status: 'active', txHash: `tx-${node}` } });
    await store.commitEvaluation('r', { [A]: stored(A), [B]: stored(B) }, [], 1);
    expect(await run()).toEqual([]);
    const rows = (await store.stateRows('r')).rows;
    expect(rows.map((r) => JSON.parse(r.state) as unknown)).toEqual([stored(A), stored(B)]);
    expect(await run()).toEqual([]);
    expect((await store.stateRows('r')).rows).toEqual(rows);
    world[B] = 'completed';
    expect((await run()).map((a) => a.summary)).toEqual([`${B} validation active → completed`]);
    expect(await run()).toEqual([]);
    expect((await storedStates(store, 'r'))[B]).toMatchObject({ period: { status: 'completed' }, missing: false });
  });

  it('reads a rule\'s states back in the order its kind evaluates them (its nodeIds), not the file\'s', async () => {
    const { store, engine } = setup({});
    const stored = (node: string) => ({ period: { txHash: `tx-${node}`, status: 'active', startTimestamp: 1, endTimestamp: 2 }, missing: false });
    await store.commitEvaluation('r', { [A]: stored(A), [B]: stored(B) }, [], 1);
    await engine.restore({ ...rule, spec: { ...rule.spec, nodeIds: [B, A] } } as LoadedRule);
    expect([...(engine.view('r')?.states.keys() ?? [])]).toEqual([B, A]);
  });

  it('a failure of every lookup fails the evaluation and changes nothing', async () => {
    const world: Record<string, string | Error> = { [A]: 'active', [B]: 'active' };
    const { store, run } = setup(world);
    await run();
    const before = await storedStates(store, 'r');
    world[A] = world[B] = new Error('network error (ECONNREFUSED)');
    await expect(run()).rejects.toThrow('ECONNREFUSED');
    expect(await storedStates(store, 'r')).toEqual(before);
  });

  it('a commit that fails keeps nothing of that evaluation: the states kept between cycles are dropped, and the change is found again', async () => {
    const world: Record<string, string | Error> = { [A]: 'active', [B]: 'active' };
    const { store, run } = setup(world);
    await run();
    await run(); // the states now come from the engine's own last commit
    world[A] = 'completed';
    const commit = store.commitEvaluation.bind(store);
    store.commitEvaluation = () => {
      throw new Error('disk I/O error');
    };
    await expect(run()).rejects.toThrow('disk I/O error');
    store.commitEvaluation = commit;
    expect((await run()).map((a) => a.summary)).toEqual([`${A} validation active → completed`]);
    expect(await run()).toEqual([]);
    expect((await storedStates(store, 'r'))[A]).toMatchObject({ period: { status: 'completed' } });
  });

  it('two evaluations of the same rule at once (once beside the schedule): the change is reported once, the later is evaluated again', async () => {
    const world: Record<string, string | Error> = { [A]: 'active', [B]: 'active' };
    const { store, run } = setup(world);
    await run();
    await run();
    world[A] = 'completed';
    const both = await Promise.all([run(), run()]);
    expect(both.flat().map((a) => a.summary)).toEqual([`${A} validation active → completed`]);
    expect(await store.outbox('pending')).toHaveLength(1);
    expect(await run()).toEqual([]);
  });

  it('good and neutral news go at info (or the rule\'s severities), never to a route for critical only; bad news at the rule\'s severity', async () => {
    const { route } = configSchema.parse({ route: { receivers: ['chat'], routes: [{ match: { severity: 'critical' }, receivers: ['pager'] }] } });
    const world: Record<string, string | Error> = { [A]: 'pending', [B]: 'active' };
    const { store, run } = setup(world, (_rule, labels) => resolveRoutes(route, labels));
    await run();
    world[A] = 'active'; // good
    world[B] = 'completed'; // neutral
    const sent = (await run()).map((a) => `${a.summary}: ${a.severity} (label ${a.labels['severity']})`);
    expect(sent).toEqual([`${A} validation pending → active: info (label info)`, `${B} validation active → completed: info (label info)`]);
    expect((await store.outbox('pending')).map((r) => r.receiver)).toEqual(['chat', 'chat']);
    world[A] = 'removed'; // bad
    expect((await run()).map((a) => a.severity)).toEqual(['critical']);
    expect((await store.outbox('pending')).map((r) => r.receiver).sort()).toEqual(['chat', 'chat', 'pager']);
  });

  it('severities: a rule may send good news at another severity', async () => {
    const world: Record<string, string | Error> = { [A]: 'pending', [B]: 'active' };
    const { store, engine } = setup(world);
    const loud = { ...rule, severities: { good: 'warning' } } as LoadedRule;
    await engine.evaluate(loud, new AbortController().signal);
    world[A] = 'active';
    world[B] = 'completed';
    expect((await engine.evaluate(loud, new AbortController().signal)).map((a) => a.severity)).toEqual(['warning', 'info']);
    expect(await store.outbox('pending')).toHaveLength(2);
  });
});

describe('severityOf: the one place news becomes a severity', () => {
  const r = { severity: 'critical', severities: { good: 'warning' } } as const;
  it('an explicit severity wins; bad news (the default) at the rule’s; good and neutral at the rule’s severities, else info', () => {
    expect(severityOf(r, { severity: 'info', news: 'bad' })).toBe('info');
    expect(severityOf(r, {})).toBe('critical');
    expect(severityOf(r, { news: 'bad' })).toBe('critical');
    expect(severityOf(r, { news: 'good' })).toBe('warning');
    expect(severityOf(r, { news: 'neutral' })).toBe('info');
    expect(severityOf({ severity: 'warning' }, { news: 'good' })).toBe('info');
  });
});

describe('errorText', () => {
  it('an Error’s message, anything else as text', () => {
    expect(errorText(new Error('HTTP 503'))).toBe('HTTP 503');
    expect(errorText('timeout')).toBe('timeout');
    expect(errorText(undefined)).toBe('undefined');
  });
});
