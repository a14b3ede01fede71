import { describe, expect, it } from 'vitest';
import type { MetricsApi } from '../api/metrics-api.js';
import { spec as metricThresholdSpec } from '../rules/metric-threshold/schema.js';
import { spec as validationEndSpec } from '../rules/validation-end/schema.js';
import { engineWorld, NODE_A, NODE_B, NODE_C, START, target, validatorRule } from '../../test/helpers/engine-world.js';
import { storedStates } from '../../test/helpers/stored-states.js';

// A condition's alert through the engine: its severity and labels, its lifecycle options
// (keepFiringFor, sendResolved, reminders), and where it goes (mutes, digests).

const MINUTE = 60_000;
/** validation-end: the fake's periods ended 2 s past the epoch, so a node's condition holds at once. */
const ending = (over: Record<string, unknown> = {}, nodeIds = [NODE_A]) =>
  validatorRule({ name: 'end', kind: 'validation-end', labels: { team: 'core' }, spec: validationEndSpec.parse({ network: 'mainnet', nodeIds }), ...over });
const ENDED = `${NODE_A} validation ended 1970-01-01T00:00:02Z and no new period has started`;
const RENEWED = `${NODE_A} has a new validation period: the end warning is resolved`;
const renewed = { status: 'active', tx: 'tx-new', end: START / 1000 + 90 * 86_400 };

/** One line per alert an evaluation returned: status, severity, reminder, summary. */
const told = (alerts: Array<{ status: string; severity: string; reminder?: boolean; summary: string }>) => alerts.map((a) => `${a.status} ${a.severity}${a.reminder ? ' reminder' : ''}: ${a.summary}`);

describe('engine: a condition’s alert', () => {
  it('fires at the rule’s severity with the rule’s, the kind’s and its own labels, stamped on the wall; resolves in the kind’s words', async () => {
    const w = engineWorld({ world: { [NODE_A]: 'active' }, wallAhead: 7_000 });
    const rule = ending();
    const [fired, ...rest] = await w.run(rule);
    expect(rest).toEqual([]);
    expect(fired).toMatchObject({
      rule: 'end',
      kind: 'validation-end',
      status: 'firing',
      severity: 'critical',
      subject: NODE_A,
      summary: ENDED,
      labels: { team: 'core', node: NODE_A, network: 'mainnet', threshold: 'ended', rule: 'end', severity: 'critical' },
      at: new Date(START + 7_000).toISOString(),
    });
    expect(fired?.alertId).toBeGreaterThan(0);
    expect(await w.rows()).toEqual([`slack: ${ENDED}`]);
    // The row carries the condition's key (a channel's dedup key); `once --json` does not.
    expect((await w.store.claimDue('slack', Number.MAX_SAFE_INTEGER, 10, 1)).map((r) => r.message.conditionKey)).toEqual([NODE_A]);
    expect(fired).not.toHaveProperty('conditionKey');
    expect(w.logged).toEqual([]);
    w.world[NODE_A] = renewed;
    w.at.ms += MINUTE;
    expect(told(await w.run(rule))).toEqual([`resolved critical: ${RENEWED}`]);
    expect(await w.store.activeAlerts()).toEqual([]);
  });

  it('sendResolved: false ends the alert without a word', async () => {
    const w = engineWorld({ world: { [NODE_A]: 'active' } });
    const rule = ending({ sendResolved: false });
    await w.run(rule);
    w.world[NODE_A] = renewed;
    w.at.ms += MINUTE;
    expect(await w.run(rule)).toEqual([]);
    expect(await w.store.activeAlerts()).toEqual([]);
    expect(await w.rows()).toEqual([`slack: ${ENDED}`]);
  });

  it('keepFiringFor holds a cleared condition firing that long on the steady clock, then resolves it', async () => {
    const w = engineWorld({ world: { [NODE_A]: 'active' }, wallAhead: -3_600_000 });
    const rule = ending({ keepFiringFor: 2 * MINUTE });
    await w.run(rule);
    w.world[NODE_A] = renewed;
    const polls: string[][] = [];
    for (let i = 1; i <= 4; i++) {
      w.at.ms += MINUTE;
      polls.push(told(await w.run(rule)));
    }
    // Resolved two polls after the renewal: the period it is in is the one it had then.
    expect(polls).toEqual([[], [], [`resolved critical: ${NODE_A} validation now ends 2027-02-24T12:00:00Z: the end warning is resolved`], []]);
  });

  it('reminds at the shortest repeat among its receivers (a receiver with none is left out); each receiver at its own', async () => {
    const w = engineWorld({ world: { [NODE_A]: 'active' }, targetsFor: () => [target('slack', { repeatMs: 3 * MINUTE }), target('mail', { repeatMs: 0 }), target('chat', { repeatMs: 2 * MINUTE })] });
    const rule = ending();
    const reminded: string[][] = [];
    for (let i = 0; i <= 6; i++) {
      const alerts = await w.run(rule);
      reminded.push(alerts.filter((a) => a.reminder).map(() => `${i}m`));
      w.at.ms += MINUTE;
    }
    // Every 2 minutes (chat's); slack hears at the first of those 3 minutes after its last.
    expect(reminded.map((r) => r.length)).toEqual([0, 0, 1, 0, 1, 0, 1]);
    const rows = (await w.store.outbox('pending')).map((r) => r.receiver);
    expect(rows.sort()).toEqual(['chat', 'chat', 'chat', 'chat', 'mail', 'slack', 'slack']);
  });

  it('a rule’s repeatInterval overrides its receivers’ repeat; with no receiver the rule’s, else the route’s, still paces it', async () => {
    const own = engineWorld({ world: { [NODE_A]: 'active' }, targetsFor: () => [target('slack', { repeatMs: 10 * MINUTE })] });
    const byRule = ending({ repeatInterval: MINUTE });
    await own.run(byRule);
    own.at.ms += MINUTE;
    expect(told(await own.run(byRule))).toEqual([`firing critical reminder: ${ENDED}`]);
    expect(await own.rows()).toEqual([`slack: ${ENDED}`, `slack: ${ENDED}`]);

    const nowhere = engineWorld({ world: { [NODE_A]: 'active' }, targetsFor: () => [], repeatIntervalMs: 2 * MINUTE });
    const rule = ending();
    const polls: number[] = [];
    for (let i = 0; i <= 2; i++) {
      polls.push((await nowhere.run(rule)).filter((a) => a.reminder).length);
      nowhere.at.ms += MINUTE;
    }
    expect(polls).toEqual([0, 0, 1]);
    const ruled = engineWorld({ world: { [NODE_A]: 'active' }, targetsFor: () => [], repeatIntervalMs: 10 * MINUTE });
    await ruled.run(byRule);
    ruled.at.ms += MINUTE;
    expect(told(await ruled.run(byRule))).toEqual([`firing critical reminder: ${ENDED}`]);
  });
});

describe('engine: a failed evaluation is no resolution', () => {
  const am = () => [target('am', { resendMs: MINUTE, repeatMs: 60 * MINUTE })];
  const down = () => new Error('data API GET …: HTTP 503');

  it('a firing alert reaches the receiver that forgets it again at its resend interval, though the poll failed; a pending one does not', async () => {
    const w = engineWorld({ world: { [NODE_A]: 'active', [NODE_B]: 'active' }, targetsFor: am });
    const fires = ending({}, [NODE_A]);
    const waits = ending({ name: 'waits', for: 30 * MINUTE }, [NODE_B]);
    await w.run(fires);
    await w.run(waits);
    expect([...(await w.store.loadActive('end')), ...(await w.store.loadActive('waits'))].map((a) => a.state)).toEqual(['firing', 'pending']);
    w.world[NODE_A] = w.world[NODE_B] = down();
    w.at.ms += MINUTE;
    await w.tryRun(fires);
    await w.tryRun(waits);
    expect((await w.store.claimDue('am', Number.MAX_SAFE_INTEGER, 10, 1)).map((r) => `${r.message.rule}${r.message.details['Reminder'] ? ' reminder' : ''}: ${r.message.summary}`)).toEqual([`end: ${ENDED}`, `end reminder: ${ENDED}`]);
    expect((await w.store.stateRows('end')).rows.map((r) => r.entity)).toEqual([NODE_A]);
  });

  it('rule-failing fires at failingAfter and resolves at the first good evaluation, whatever the rule’s for, keepFiringFor and sendResolved', async () => {
    const w = engineWorld({ world: { [NODE_A]: down() } });
    const rule = ending({ for: 10 * MINUTE, keepFiringFor: 10 * MINUTE, sendResolved: false });
    await w.tryRun(rule);
    w.at.ms += MINUTE;
    await w.tryRun(rule);
    w.world[NODE_A] = renewed;
    w.at.ms += MINUTE;
    await w.run(rule);
    expect(await w.rows()).toEqual(['slack: rule "end" is blind: its last 2 evaluations failed (data API GET …: HTTP 503)', 'slack: rule "end" evaluates again']);
  });
});

describe('engine: what it reads back', () => {
  it('a stored alert that does not read fails the evaluation loudly, never read as "not firing"', async () => {
    const w = engineWorld({ world: { [NODE_A]: 'active' } });
    const row = { key: NODE_A, tier: 'ended', state: 'firing', startedAt: 1, notifiedAt: 1, clearedAt: null, mutedAt: null, mutedReceivers: [], notifiedReceivers: {}, condition: { garbage: true } };
    await w.store.commitEvaluation('end', {}, [], 1, [row as never]);
    await expect(w.run(ending())).rejects.toThrow(`stored alert "${NODE_A}" of rule "end" is invalid: `);
    expect(await w.rows()).toEqual([]);
  });
});

describe('engine: secrets never leave it', () => {
  it('a secret in what the service said is scrubbed from the alert, its outbox row, its resolution and the stored state', async () => {
    const w = engineWorld({ world: { [NODE_A]: { status: 'active', tx: 'tx-sekret', end: 2 } }, redact: (t) => t.replaceAll('sekret', '[REDACTED]') });
    const rule = ending();
    const [fired] = await w.run(rule);
    expect(fired?.details['Staking tx']).toBe('tx-[REDACTED]');
    const stored = JSON.stringify([(await storedStates(w.store, 'end')), (await w.store.activeAlerts()), (await w.store.claimDue('slack', Number.MAX_SAFE_INTEGER, 10, 1))]);
    expect(stored).not.toContain('sekret');
    expect(stored).toContain('tx-[REDACTED]');
    w.world[NODE_A] = { status: 'active', tx: 'tx-sekret-2', end: START / 1000 + 86_400 * 90 };
    w.at.ms += MINUTE;
    const [resolved] = await w.run(rule);
    expect(resolved?.status).toBe('resolved');
    expect(JSON.stringify(resolved)).not.toContain('sekret');
    expect(JSON.stringify(resolved)).toContain('tx-[REDACTED]-2');
  });
});

describe('engine: where an alert goes', () => {
  it('a silence that matches mutes it: recorded with the silence’s reason, not sent', async () => {
    const w = engineWorld({ world: { [NODE_A]: 'active' } });
    await w.store.addSilence({ matchers: [{ name: 'team', value: 'core', regex: false }], startsAt: START - MINUTE, endsAt: START + 60 * MINUTE, comment: 'maintenance', createdBy: 'ops', createdAt: START });
    await w.run(ending());
    expect(await w.rows()).toEqual([]);
    expect(await w.rows('muted')).toEqual([`slack: ${ENDED} [muted: silenced by #1 until 2026-11-26T13:00:00.000Z: maintenance]`]);
  });

  it('a route’s mute window is read on the wall clock (a person’s hours), not the steady one', async () => {
    // The wall says 14:00 UTC, the steady clock 12:00.
    const w = engineWorld({
      world: { [NODE_A]: 'active' },
      wallAhead: 2 * 3_600_000,
      timeIntervals: [{ name: 'afternoon', times: [{ start: '13:00', end: '15:00' }] }] as never,
      targetsFor: () => [target('slack', { muteTimeIntervals: ['afternoon'] }), target('pager')],
    });
    await w.run(ending());
    expect(await w.rows()).toEqual([`pager: ${ENDED}`]);
    expect(await w.rows('muted')).toEqual([`slack: ${ENDED} [muted: muted by time interval afternoon]`]);
  });

  it('a receiver with a digest: its row waits for the slot, asked on the wall for the alert’s severity, kept on the steady clock', async () => {
    const asked: string[] = [];
    const slot = START + 3 * 3_600_000;
    const w = engineWorld({
      world: { [NODE_A]: 'active' },
      wallAhead: 1_000,
      targetsFor: () => [target('slack'), target('daily')],
      digestAt: (receiver, severity, now) => {
        asked.push(`${receiver} ${severity} ${now}`);
        return receiver === 'daily' ? slot : undefined;
      },
    });
    await w.run(ending());
    expect(asked).toEqual([`slack critical ${START + 1_000}`, `daily critical ${START + 1_000}`]);
    expect((await w.store.outbox('pending')).map((r) => [r.receiver, r.digestAt])).toEqual([
      ['daily', slot - 1_000],
      ['slack', null],
    ]);
  });

  it('tells the delivery once a commit queued a notification, not when it queued none', async () => {
    let kicks = 0;
    const w = engineWorld({ world: { [NODE_A]: 'active' }, onQueued: () => kicks++ });
    const rule = ending();
    await w.run(rule);
    expect(kicks).toBe(1);
    w.at.ms += MINUTE;
    await w.run(rule);
    expect(kicks).toBe(1);
    const nobody = engineWorld({ world: { [NODE_A]: 'active' }, targetsFor: () => [], onQueued: () => kicks++ });
    await nobody.run(rule);
    expect(kicks).toBe(1);
  });
});

describe('engine: the states it keeps', () => {
  it('a node dropped from a reloaded rule has its state removed; the others are kept as they were', async () => {
    const w = engineWorld();
    const both = validatorRule();
    await w.run(both);
    await w.run(both);
    w.engine.forget('r');
    await w.run(validatorRule({}, [NODE_A]));
    expect(Object.keys((await storedStates(w.store, 'r')))).toEqual([NODE_A]);
    expect(w.engine.view('r')?.states.has(NODE_B)).toBe(false);
  });

  it('a node swapped for another (as many nodes as before): the one dropped has its state removed', async () => {
    const w = engineWorld({ world: { [NODE_A]: 'active', [NODE_B]: 'active', [NODE_C]: 'active' } });
    await w.run(validatorRule());
    w.engine.forget('r');
    await w.run(validatorRule({}, [NODE_A, NODE_C]));
    expect(Object.keys((await storedStates(w.store, 'r'))).sort()).toEqual([NODE_A, NODE_C].sort());
  });

  it('polls that keep committing one rule leave no conflict to retry (each commit is the next one’s revision)', async () => {
    const w = engineWorld({ world: { [NODE_A]: 'active' } });
    const rule = ending();
    for (let i = 0; i < 3; i++) {
      await w.run(rule);
      w.at.ms += MINUTE;
    }
    w.world[NODE_A] = renewed;
    await w.run(rule);
    await w.run(rule);
    expect(w.logged).toEqual([]);
  });
});

describe('engine: a kind that judges `for` itself', () => {
  it('metric-threshold: held over its series window at the first poll, it fires at once; the engine does not wait its `for` again', async () => {
    const DAY = 86_400;
    const today = Math.floor(START / 1000 / DAY) * DAY;
    // Three complete days above 100: the window of `for: 2d` is already whole.
    const points = [3, 2, 1].map((n) => ({ timestamp: today - n * DAY, value: 150 }));
    const metricsApi = { chainMetric: async () => points } as unknown as MetricsApi;
    const w = engineWorld({ metricsApi });
    const spec = metricThresholdSpec.parse({ chainId: 43114, metric: 'activeAddresses', timeInterval: 'day', above: 100, for: '2d' });
    const rule = validatorRule({ name: 'busy', kind: 'metric-threshold', for: spec.for, spec });
    expect(told(await w.run(rule))).toEqual([
      `firing critical: activeAddresses on chain 43114 (per day) is above 100 for 2d: latest 150 at ${new Date((today - DAY) * 1000).toISOString().replace('.000Z', 'Z')}`,
    ]);
  });
});
