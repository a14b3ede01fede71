import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestContext } from '../api/context.js';
import { ApiError } from '../api/errors.js';
import type { NodeApi } from '../api/node-api.js';
import { spec as nodeUpgradeSpec } from '../rules/node-upgrade/schema.js';
import { SqliteStore, StateConflictError } from '../store/index.js';
import { engineWorld, NODE_A, NODE_B, NODE_C, START, target, validatorRule } from '../../test/helpers/engine-world.js';
import { storedStates } from '../../test/helpers/stored-states.js';

// What an operator sees of a rule's own health: its counters and gauges on /metrics, the
// rule-failing alert, and the log line of a failed evaluation.

const rule = validatorRule();
const down = () => new Error('network error (ECONNREFUSED)');

/** Each pending row's message as a receiver gets it: kind, status, severity and summary. */
async function sent(w: ReturnType<typeof engineWorld>): Promise<string[]> {
  return (await w.store.claimDue('slack', Number.MAX_SAFE_INTEGER, 100, 1)).map((r) => `${r.message.kind} ${r.message.status} ${r.message.severity}: ${r.message.summary}`);
}

describe('engine: a rule’s own health, as /metrics and its alerts show it', () => {
  it('restore: the counters exist at 0 before the first poll; the failure gauges are as the app kept them across a reload', async () => {
    const w = engineWorld();
    w.failures.failed('r', 'HTTP 503', START);
    w.failures.failed('r', 'HTTP 503', START);
    w.failures.failed('r', 'HTTP 503', START);
    w.failures.entitiesEvaluated('r', { [NODE_A]: 'timeout' }, START);
    await w.engine.restore(rule);
    expect(await Promise.all([w.value('ruleEvaluations', { rule: 'r' }), w.value('ruleFailures', { rule: 'r' }), w.value('ruleEntityFailures', { rule: 'r' })])).toEqual([0, 0, 0]);
    expect(await w.value('ruleFailingEntities', { rule: 'r' })).toBe(1);
    expect(await w.value('ruleConsecutiveFailures', { rule: 'r' })).toBe(3);
  });

  it('counts each evaluation and each failure; a failure is logged, its run is gauged, and the last success is stamped on the wall', async () => {
    const w = engineWorld({ wallAhead: 5_000 });
    await w.run(rule);
    expect(await w.value('ruleEvaluations', { rule: 'r' })).toBe(1);
    expect(await w.value('ruleLastSuccess', { rule: 'r' })).toBe((START + 5_000) / 1000);
    expect(await w.value('ruleConsecutiveFailures', { rule: 'r' })).toBe(0);
    w.world[NODE_A] = w.world[NODE_B] = down();
    await expect(w.run(rule)).rejects.toThrow('ECONNREFUSED');
    expect(w.logged).toContainEqual({ level: 'warn', msg: 'rule evaluation failed; state unchanged', fields: { rule: 'r', error: 'network error (ECONNREFUSED)' } });
    expect(await Promise.all([w.value('ruleEvaluations', { rule: 'r' }), w.value('ruleFailures', { rule: 'r' }), w.value('ruleConsecutiveFailures', { rule: 'r' })])).toEqual([2, 1, 1]);
    w.at.ms += 60_000;
    await w.tryRun(rule);
    expect(await w.value('ruleConsecutiveFailures', { rule: 'r' })).toBe(2);
    expect(await w.value('ruleLastSuccess', { rule: 'r' })).toBe((START + 5_000) / 1000);
  });

  it('at failingAfter failures in a row, rule-failing fires at its severity with the error; the next good evaluation resolves it and zeroes the gauge', async () => {
    const w = engineWorld({ failingAfter: 3 });
    await w.run(rule);
    w.world[NODE_A] = w.world[NODE_B] = down();
    await w.tryRun(rule);
    await w.tryRun(rule);
    expect(await sent(w)).toEqual([]);
    await w.tryRun(rule);
    expect(await sent(w)).toEqual(['rule-failing firing warning: rule "r" is blind: its last 3 evaluations failed (network error (ECONNREFUSED))']);
    expect((await w.store.activeAlerts()).map((a) => [a.rule, a.key, a.condition])).toEqual([['!rule-failing:r', 'failing', expect.objectContaining({ labels: { alertname: 'rule-failing', rule: 'r', severity: 'warning' } })]]);
    w.world[NODE_A] = w.world[NODE_B] = 'active';
    await w.run(rule);
    expect(await sent(w)).toEqual(['rule-failing resolved warning: rule "r" evaluates again']);
    expect(await w.value('ruleConsecutiveFailures', { rule: 'r' })).toBe(0);
    expect(await w.store.activeAlerts()).toEqual([]);
    // avawatch's own alert keeps no entity state in the state file.
    expect((await w.store.stateRows('!rule-failing:r')).rows).toEqual([]);
    expect(w.logged.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('after a restart, a rule-failing alert stored before resolves at the rule’s first good evaluation', async () => {
    const before = engineWorld({ world: { [NODE_A]: down(), [NODE_B]: down() } });
    await before.tryRun(rule);
    await before.tryRun(rule);
    expect((await before.store.activeAlerts()).map((a) => a.rule)).toEqual(['!rule-failing:r']);
    const after = engineWorld({ store: before.store });
    await after.engine.restore(rule);
    await after.run(rule);
    expect(await after.store.activeAlerts()).toEqual([]);
    expect((await sent(after)).at(-1)).toBe('rule-failing resolved warning: rule "r" evaluates again');
  });

  it('counts failed lookups per entity, names them in the log and gauges how many fail now; the evaluation of the rest commits', async () => {
    const r3 = validatorRule({}, [NODE_A, NODE_B, NODE_C]);
    const w = engineWorld({ world: { [NODE_A]: 'active', [NODE_B]: 'active', [NODE_C]: 'active' } });
    await w.run(r3);
    w.world[NODE_A] = w.world[NODE_B] = new Error('HTTP 503');
    await w.run(r3);
    expect(w.logged).toContainEqual({ level: 'warn', msg: `lookups failed for 2 entities (${NODE_A}, ${NODE_B}); their state is kept, the rest was evaluated`, fields: { rule: 'r', failed: { [NODE_A]: 'HTTP 503', [NODE_B]: 'HTTP 503' } } });
    expect(await w.value('ruleFailingEntities', { rule: 'r' })).toBe(2);
    expect(await w.value('ruleEntityFailures', { rule: 'r' })).toBe(2);
    w.world[NODE_A] = 'active';
    await w.run(r3);
    expect(await w.value('ruleFailingEntities', { rule: 'r' })).toBe(1);
    expect(await w.value('ruleEntityFailures', { rule: 'r' })).toBe(3);
    expect(await sent(w)).toEqual([`rule-failing firing warning: rule "r" cannot see ${NODE_B}: its last 2 lookups failed (HTTP 503)`]);
    w.world[NODE_B] = 'active';
    await w.run(r3);
    // Every lookup answered: no warning of 0 entities.
    expect(w.logs.filter((l) => l.startsWith('lookups failed'))).toHaveLength(2);
    expect(await w.value('ruleFailingEntities', { rule: 'r' })).toBe(0);
    expect(await w.value('ruleEntityFailures', { rule: 'r' })).toBe(3);
    expect(await sent(w)).toEqual([`rule-failing resolved warning: rule "r" sees ${NODE_B} again`]);
  });

  it('a rule that then fails whole keeps its entity alert firing beside its own: that evaluation saw none of them', async () => {
    const w = engineWorld();
    await w.run(rule);
    w.world[NODE_A] = new Error('HTTP 503');
    await w.run(rule);
    await w.run(rule);
    w.world[NODE_B] = new Error('HTTP 503');
    await w.tryRun(rule);
    await w.tryRun(rule);
    expect((await w.store.activeAlerts()).map((a) => `${a.key} ${a.state}`).sort()).toEqual([`entity:${NODE_A} firing`, 'failing firing']);
    expect(await sent(w)).toEqual([`rule-failing firing warning: rule "r" cannot see ${NODE_A}: its last 2 lookups failed (HTTP 503)`, 'rule-failing firing warning: rule "r" is blind: its last 2 evaluations failed (HTTP 503)']);
  });

  it('a skipped tick is a failed evaluation: counted, and at failingAfter it fires rule-failing saying how long the last one has run', async () => {
    const w = engineWorld();
    await w.engine.skipped(rule, 200);
    expect(await Promise.all([w.value('ruleEvaluations', { rule: 'r' }), w.value('ruleFailures', { rule: 'r' }), w.value('ruleConsecutiveFailures', { rule: 'r' })])).toEqual([1, 1, 1]);
    expect(await sent(w)).toEqual([]);
    await w.engine.skipped(rule, 95_000);
    expect(await sent(w)).toEqual(['rule-failing firing warning: rule "r" is blind: its last 2 evaluations failed (evaluation skipped: the previous one has been running for 1s, past the rule\'s interval)']);
    w.failures.succeeded('r');
    await w.engine.skipped(rule, 95_000);
    expect(w.failures.run('r')?.error).toBe("evaluation skipped: the previous one has been running for 1m, past the rule's interval");
  });

  it('an evaluation cut short by shutdown or reload is not the rule’s failure: nothing is counted or committed', async () => {
    const w = engineWorld();
    const stop = new AbortController();
    stop.abort();
    await expect(w.engine.evaluate(rule, stop.signal)).rejects.toThrow();
    expect(await w.value('ruleEvaluations', { rule: 'r' })).toBe(1);
    expect(await w.value('ruleFailures', { rule: 'r' })).toBeUndefined();
    expect(await w.value('ruleConsecutiveFailures', { rule: 'r' })).toBeUndefined();
    expect(w.logs).toEqual([]);
    expect(await storedStates(w.store, 'r')).toEqual({});
  });

  it('asks the service on the rule’s behalf: at its severity, taking a shared answer only if younger than half its interval; nothing it started outlives the evaluation', async () => {
    const asked: unknown[] = [];
    const signals: AbortSignal[] = [];
    const validatorList = async (_n: string, _q: unknown, signal: AbortSignal) => {
      asked.push(requestContext.getStore());
      signals.push(signal);
      return { periods: [], broken: [] };
    };
    const data = { primary: { validatorList, validatorPeriods: async () => 'not-found' } };
    const e = engineWorld({ data: data as never });
    await e.run(validatorRule({ schedule: { everyMs: 10 * 60_000 }, severity: 'warning' }));
    expect(asked[0]).toEqual({ severity: 'warning', maxAgeMs: 5 * 60_000 });
    expect(signals.length).toBeGreaterThan(0);
    expect(signals.every((s) => s.aborted)).toBe(true);
  });

  it('another process committing each time: evaluated again up to three times, then a failed evaluation', async () => {
    const w = engineWorld();
    let commits = 0;
    w.store.commitEvaluation = () => {
      commits++;
      throw new StateConflictError('the state changed');
    };
    await expect(w.run(rule)).rejects.toThrow('the state changed');
    expect(commits).toBe(3);
    expect(w.logged.filter((l) => l.msg.startsWith('another process committed this rule meanwhile')).map((l) => l.fields)).toEqual([
      { rule: 'r', attempt: 1 },
      { rule: 'r', attempt: 2 },
    ]);
    expect(await w.value('ruleFailures', { rule: 'r' })).toBe(1);
  });

  it('another process (once beside the daemon) committed since: the states are read again, with no conflict to retry', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-engine-'));
    try {
      const daemon = engineWorld({ store: SqliteStore.open(join(dir, 'state.db')) });
      const once = engineWorld({ store: SqliteStore.open(join(dir, 'state.db')), world: daemon.world });
      await daemon.run(rule);
      daemon.world[NODE_A] = 'completed';
      expect((await once.run(rule)).map((a) => a.summary)).toEqual([`${NODE_A} validation active → completed`]);
      expect(await daemon.run(rule)).toEqual([]);
      expect(daemon.logs).toEqual([]);
      await daemon.store.close();
      await once.store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a stored state that does not parse fails the evaluation loudly, never read as "no state"', async () => {
    const w = engineWorld();
    await w.store.commitEvaluation('r', { [NODE_A]: { period: 'garbage' } }, [], 1);
    await expect(w.run(rule)).rejects.toThrow(`stored state of rule "r" entity "${NODE_A}" is invalid`);
    expect(await w.value('ruleConsecutiveFailures', { rule: 'r' })).toBe(1);
  });
});

describe('engine: rules blind for one cause outside them', () => {
  const apiDown = () => new ApiError('data API GET /v1/x: HTTP 503', { api: 'data', endpoint: '/v1/x', retryable: false, code: '503', status: 503 });
  const r1 = validatorRule({ name: 'r1' }, [NODE_A]);
  const r2 = validatorRule({ name: 'r2' }, [NODE_B]);

  it('its alert, stored before a restart, resolves once every rule it listed evaluates again, though none failed since', async () => {
    const before = engineWorld({ world: { [NODE_A]: apiDown(), [NODE_B]: apiDown() } });
    for (let i = 0; i < 2; i++) for (const r of [r1, r2]) await before.tryRun(r);
    expect((await before.store.activeAlerts()).map((a) => a.rule)).toEqual(['!cannot-see:data-service']);
    expect((await before.store.stateRows('!cannot-see:data-service')).rows).toEqual([]);
    expect(before.logged.filter((l) => l.level === 'error')).toEqual([]);
    const after = engineWorld({ store: before.store, world: { [NODE_A]: 'active', [NODE_B]: 'active' } });
    await after.engine.restore(r1);
    await after.engine.restore(r2);
    await after.run(r1);
    expect((await after.store.activeAlerts()).map((a) => a.rule)).toEqual(['!cannot-see:data-service']);
    await after.run(r2);
    expect(await after.store.activeAlerts()).toEqual([]);
    expect((await after.rows()).at(-1)).toBe('slack: avawatch sees again: the data service answers, 2 rules evaluate again');
    expect(after.logged).toEqual([]);
  });

  it('goes where the route tree sends it; the receivers its rules name only when the tree sends it nowhere', async () => {
    const w = engineWorld({ world: { [NODE_A]: apiDown(), [NODE_B]: apiDown() }, targetsFor: (r) => [target(r.receivers?.[0] ?? 'slack')] });
    const [p1, p2] = [validatorRule({ name: 'p1', receivers: ['pager'] }, [NODE_A]), validatorRule({ name: 'p2', receivers: ['pager'] }, [NODE_B])];
    for (let i = 0; i < 2; i++) for (const r of [p1, p2]) await w.tryRun(r);
    expect(await w.rows()).toEqual(['slack: avawatch cannot see: the data service answers 503 since 12:00 UTC, 2 rules']);
  });

  it('after a restart, a rule of it failing once (under failingAfter) holds its alert; the other waited for', async () => {
    const before = engineWorld({ world: { [NODE_A]: apiDown(), [NODE_B]: apiDown() } });
    for (let i = 0; i < 2; i++) for (const r of [r1, r2]) await before.tryRun(r);
    const after = engineWorld({ store: before.store, world: { [NODE_A]: apiDown(), [NODE_B]: 'active' } });
    await after.engine.restore(r1);
    await after.engine.restore(r2);
    await after.run(r2);
    await after.tryRun(r1);
    expect((await after.store.activeAlerts()).map((a) => a.rule)).toEqual(['!cannot-see:data-service']);
    expect(await after.rows()).toHaveLength(1);
    expect(after.logged.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('a store that cannot record its alert: logged, and every rule of it still counted as failing; recorded once the store takes it', async () => {
    const w = engineWorld({ world: { [NODE_A]: apiDown(), [NODE_B]: apiDown() } });
    const commit = w.store.commitEvaluation.bind(w.store);
    let locked = true;
    w.store.commitEvaluation = (storeRule, ...rest) => {
      if (locked && storeRule.startsWith('!cannot-see:')) throw new Error('database is locked');
      return commit(storeRule, ...rest);
    };
    for (let i = 0; i < 2; i++) for (const r of [r1, r2]) await expect(w.run(r)).rejects.toThrow('HTTP 503');
    expect(await w.store.activeAlerts()).toEqual([]);
    expect(w.logged.filter((l) => l.level === 'error')).toContainEqual({ level: 'error', msg: 'could not update the alert of rules that cannot see', fields: { cause: 'data-service', error: 'database is locked' } });
    expect([await w.value('ruleConsecutiveFailures', { rule: 'r1' }), await w.value('ruleConsecutiveFailures', { rule: 'r2' })]).toEqual([2, 2]);
    locked = false;
    await w.tryRun(r1);
    expect(await w.rows()).toEqual(['slack: avawatch cannot see: the data service answers 503 since 12:00 UTC, 2 rules']);
  });
});

describe('engine: a store that cannot record the rule-failing alert', () => {
  it('the failure is still counted and thrown as the rule’s own; what could not be recorded is logged', async () => {
    const w = engineWorld({ world: { [NODE_A]: down(), [NODE_B]: down() } });
    await w.tryRun(rule);
    w.store.loadActive = () => {
      throw new Error('database is locked');
    };
    await expect(w.run(rule)).rejects.toThrow('ECONNREFUSED');
    expect(await w.value('ruleConsecutiveFailures', { rule: 'r' })).toBe(2);
    expect(w.logged.filter((l) => l.level === 'error')).toEqual([
      { level: 'error', msg: 'could not queue the firing alerts again for the receivers that expire them', fields: { rule: 'r', error: 'database is locked' } },
      { level: 'error', msg: 'could not record the rule-failing alert', fields: { rule: 'r', error: 'database is locked' } },
    ]);
  });

  it('a good evaluation after it still commits the rule; the alert that could not be resolved is logged', async () => {
    const w = engineWorld({ world: { [NODE_A]: down(), [NODE_B]: down() } });
    await w.tryRun(rule);
    await w.tryRun(rule);
    const commit = w.store.commitEvaluation.bind(w.store);
    w.store.commitEvaluation = (storeRule, ...rest) => {
      if (storeRule.startsWith('!rule-failing:')) throw new Error('database is locked');
      return commit(storeRule, ...rest);
    };
    w.world[NODE_A] = w.world[NODE_B] = 'active';
    expect(await w.run(rule)).toEqual([]);
    expect(Object.keys((await storedStates(w.store, 'r')))).toEqual([NODE_A, NODE_B]);
    expect(w.logged.filter((l) => l.level === 'error')).toEqual([{ level: 'error', msg: 'could not update the rule-failing alert', fields: { rule: 'r', error: 'database is locked' } }]);
    expect(await w.value('ruleConsecutiveFailures', { rule: 'r' })).toBe(0);
  });
});

describe('engine: the gauges a rule’s kind makes, from committed state', () => {
  it('per rule and over every rule, each sample labelled with its rule; gone once the rule is forgotten', async () => {
    const w = engineWorld({ world: { [NODE_A]: 'active', [NODE_B]: 'pending' } });
    const other = validatorRule({ name: 'other' }, [NODE_A]);
    await w.run(rule);
    await w.run(other);
    expect(w.engine.ruleSamples('r', 'avawatch_validator_status')).toEqual([
      { metric: 'avawatch_validator_status', labels: { rule: 'r', network: 'mainnet', node_id: NODE_A, status: 'active' }, value: 1 },
      { metric: 'avawatch_validator_status', labels: { rule: 'r', network: 'mainnet', node_id: NODE_B, status: 'pending' }, value: 1 },
    ]);
    expect([...w.engine.samples('avawatch_validator_listed')].map((s) => `${s.labels['rule']} ${s.labels['node_id']} ${s.value}`)).toEqual([`r ${NODE_A} 1`, `r ${NODE_B} 1`, `other ${NODE_A} 1`]);
    expect(w.engine.ruleSamples('r', 'avawatch_no_such_gauge')).toEqual([]);
    expect(w.engine.ruleSamples('nope', 'avawatch_validator_listed')).toEqual([]);
    w.engine.forget('r');
    expect(w.engine.ruleSamples('r', 'avawatch_validator_listed')).toEqual([]);
    expect(w.engine.view('r')).toBeUndefined();
    expect([...w.engine.samples('avawatch_validator_listed')].map((s) => s.labels['rule'])).toEqual(['other']);
  });

  it('restored: the gauges show what the store holds before the first poll, with no failed entity', async () => {
    const w = engineWorld();
    await w.store.commitEvaluation('r', { [NODE_A]: { period: { txHash: 'tx', status: 'active', startTimestamp: 1, endTimestamp: 2 }, missing: false } }, [], 1);
    await w.engine.restore(rule);
    expect(w.engine.ruleSamples('r', 'avawatch_validator_end_timestamp_seconds').map((s) => [s.labels, s.value])).toEqual([[{ rule: 'r', network: 'mainnet', node_id: NODE_A }, 2]]);
    expect(w.engine.view('r')?.failed).toEqual({});
  });
});

describe('engine: a rule that reads the operator’s nodes', () => {
  it('is handed the node API client: each node is asked at its URL, and one that does not answer is a failed lookup, the rest evaluated', async () => {
    const asked: string[] = [];
    const node = {
      health: async (base: string) => {
        asked.push(base);
        throw new Error(`${base}: connection refused`);
      },
      rpc: async (base: string) => {
        asked.push(base);
        throw new Error(`${base}: connection refused`);
      },
      metricsText: async () => '',
    } as unknown as NodeApi;
    const w = engineWorld({ node });
    const spec = nodeUpgradeSpec.parse({ urls: { [NODE_A]: 'http://10.0.0.5:9650' } });
    const rule = validatorRule({ name: 'upgrade', kind: 'node-upgrade', spec });
    await w.run(rule);
    expect([...new Set(asked)]).toEqual(['http://10.0.0.5:9650']);
    expect(Object.keys(w.engine.view('upgrade')?.failed ?? {})).toEqual([NODE_A]);
    expect(await w.value('ruleFailingEntities', { rule: 'upgrade' })).toBe(1);
  });
});
