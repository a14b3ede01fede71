import { describe, expect, it } from 'vitest';
import type { FiringAlert } from '../alerts/view.js';
import type { LoadedRule } from '../config/load.js';
import { ruleKind } from '../rules/registry.js';
import type { HistoryEntry } from '../store/index.js';
import { Limiter } from '../api/limiter.js';
import { FailureCounts } from '../engine/failing.js';
import { createMetrics } from '../metrics/registry.js';
import type { GaugeSample } from '../base/types.js';
import { statusSnapshot, type StatusSources } from './snapshot.js';
import { systemClock } from '../base/clock.js';

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const B = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';

function rule(name: string, kind: string, spec: Record<string, unknown>): LoadedRule {
  return { name, kind, severity: 'warning', schedule: { everyMs: 60_000 }, spec: { ...(ruleKind(kind).spec.parse(spec) as object), name, kind } } as unknown as LoadedRule;
}

function sources(samples: GaugeSample[], firing: FiringAlert[] = []): StatusSources {
  const metrics = createMetrics({ version: 't', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] });
  const limiter = () => new Limiter({ limits: { perMinute: 100, perDay: 1000 }, maxWaitMs: 0, clock: systemClock });
  return {
    version: 't',
    now: () => new Date('2026-03-02T12:00:00Z'),
    rules: [],
    firing: () => firing,
    samples: (metric) => samples.filter((s) => s.metric === metric),
    failures: new FailureCounts(),
    metrics,
    outbox: () => ({ pending: 0, dead: 0 }),
    limiters: { data: limiter(), metrics: limiter() },
    ready: () => ({ ready: true, problems: [] }),
  };
}

const at = (metric: string, rule: string, node: string, value: number, extra: Record<string, string> = {}): GaugeSample => ({ metric, labels: { rule, network: 'mainnet', node_id: node, ...extra }, value });

describe('statusSnapshot', () => {
  it('merges the gauges of every rule that watches a node into one row, the validation that ends first on top', async () => {
    const s = await statusSnapshot(
      sources([
        at('avawatch_validator_listed', 'status', A, 1),
        at('avawatch_validator_status', 'status', A, 1, { status: 'active' }),
        at('avawatch_validator_end_timestamp_seconds', 'status', A, 2_000),
        at('avawatch_validation_end_timestamp_seconds', 'ending', B, 1_000),
        at('avawatch_validator_uptime_percent', 'health', A, 97.5),
        at('avawatch_validator_listed', 'status', B, 0),
      ]),
    );
    expect(s.validators).toMatchObject([
      { network: 'mainnet', nodeId: B, status: 'not listed', end: 1_000, uptimePercent: undefined, rules: ['ending', 'status'], verdict: { firing: 0, blind: undefined, watched: true } },
      { network: 'mainnet', nodeId: A, status: 'active', end: 2_000, uptimePercent: 97.5, rules: ['health', 'status'] },
    ]);
  });

  it('lists L1 validations by runway, unknown runways last', async () => {
    const l1 = (metric: string, id: string, value: number): GaugeSample => ({ metric, labels: { rule: 'l1', network: 'mainnet', subnet_id: 's', validation_id: id, node_id: A }, value });
    const s = await statusSnapshot(
      sources([
        l1('avawatch_l1_validator_balance_avax', 'new', 5),
        l1('avawatch_l1_validator_balance_avax', 'long', 9),
        l1('avawatch_l1_validator_balance_avax', 'short', 1),
        l1('avawatch_l1_validator_runway_seconds', 'long', 86_400),
        l1('avawatch_l1_validator_runway_seconds', 'short', 60),
      ]),
    );
    expect(s.l1Validators.map((v) => [v.validationId, v.balanceAvax, v.runwaySeconds])).toEqual([
      ['short', 1, 60],
      ['long', 9, 86_400],
      ['new', 5, undefined],
    ]);
  });

  it('puts the newest alert first and reads the budget left', async () => {
    const alert = (rule: string, startsAt: string): FiringAlert => ({ rule, key: rule, subject: rule, severity: 'warning', summary: '', labels: {}, details: {}, tier: '', startsAt });
    const s = await statusSnapshot(sources([], [alert('old', '2026-03-01T00:00:00.000Z'), alert('new', '2026-03-02T00:00:00.000Z')]));
    expect(s.alerts.map((a) => a.rule)).toEqual(['new', 'old']);
    expect(s.budgets).toEqual([
      { api: 'data', perMinute: 100, remainingMinute: 100, perDay: 1000, remainingDay: 1000, spentSinceStart: 0 },
      { api: 'metrics', perMinute: 100, remainingMinute: 100, perDay: 1000, remainingDay: 1000, spentSinceStart: 0 },
    ]);
  });
});

describe('statusSnapshot: validators first', () => {
  const alert = (labels: Record<string, string>, subject = 'x'): FiringAlert => ({ rule: 'r', key: subject, subject, severity: 'warning', summary: '', labels, details: {}, tier: '', startsAt: '2026-03-02T11:00:00.000Z' });

  it('gives every inventory validator a row, in inventory order, named and labelled, before any rule has state for it', async () => {
    const src = sources([at('avawatch_validator_status', 'status', B, 1, { status: 'active' }), at('avawatch_validator_end_timestamp_seconds', 'status', A, 1)]);
    src.inventory = [
      { nodeId: B, name: 'bee', network: 'mainnet', labels: { team: 'infra' } },
      { nodeId: 'NodeID-C', name: 'sea', network: 'mainnet', labels: {} },
    ];
    const s = await statusSnapshot(src);
    expect(s.validators.map((v) => [v.name, v.nodeId, v.status, v.verdict.watched])).toEqual([
      ['bee', B, 'active', true],
      ['sea', 'NodeID-C', undefined, false],
      [undefined, A, undefined, true],
    ]);
    expect(s.validators[0]?.labels).toEqual({ team: 'infra' });
  });

  it("lists the node rules that read a validator's own API among its rules, before they have state for it, and calls it blind when one fails its lookup", async () => {
    const src = sources([at('avawatch_validator_status', 'status', A, 1, { status: 'active' })]);
    src.inventory = [{ nodeId: A, name: 'alpha', network: 'mainnet', labels: {} }];
    src.rules = [
      rule('status', 'validator-status', { network: 'mainnet', nodeIds: [A] }),
      rule('node-health', 'node-health', { network: 'mainnet', urls: { [A]: 'http://127.0.0.1:9650' } }),
      rule('node-disk-low', 'node-metrics', { urls: { [A]: 'http://127.0.0.1:9650' }, metric: 'avalanche_resource_tracker_disk_available_percentage', below: 20 }),
      // It asks the service's list for A too (the validator rules' own call), but reads only B's API.
      rule('other-node', 'node-health', { network: 'mainnet', urls: { [B]: 'http://127.0.0.1:9651' }, nodeIds: [A, B] }),
    ];
    const s = await statusSnapshot(src);
    expect(s.validators.find((v) => v.nodeId === A)?.rules).toEqual(['node-disk-low', 'node-health', 'status']);
    src.failures.entitiesEvaluated('node-health', { [A]: 'connection refused' }, 0);
    expect((await statusSnapshot(src)).validators.find((v) => v.nodeId === A)?.verdict.blind).toBe('rule node-health cannot look it up: connection refused');
  });

  it('counts the alerts firing about each node, and calls a node blind when a rule watching it fails or fails its lookup', async () => {
    const src = sources(
      [at('avawatch_validator_listed', 'status', A, 1), at('avawatch_validator_listed', 'health', B, 1), at('avawatch_validator_version_info', 'health', B, 1, { version: 'avalanche/1.14.1' })],
      [alert({ node: A, network: 'mainnet' }), alert({ entity: A }), alert({ node: A, validation_id: 'v1' }), alert({ node: B, network: 'fuji' })],
    );
    src.failures.failed('status', 'HTTP 503 from the service', 0);
    const health = rule('health', 'validator-health', { network: 'mainnet', nodeIds: [B] });
    src.rules = [health];
    src.failures.entitiesEvaluated('health', { [B]: 'not known to the service' }, 0);
    const s = await statusSnapshot(src);
    const byNode = new Map(s.validators.map((v) => [v.nodeId, v]));
    expect(byNode.get(A)?.verdict).toEqual({ firing: 2, worst: 'warning', blind: 'rule status fails: HTTP 503 from the service', watched: true });
    expect(byNode.get(B)?.verdict).toEqual({ firing: 0, blind: 'rule health cannot look it up: not known to the service', watched: true });
    expect(byNode.get(B)?.version).toBe('avalanche/1.14.1');
    // validator-health's defaults: the reward threshold alone (80%: the chart knows no start here); a warning band only when set.
    expect(byNode.get(B)?.chart.thresholds).toEqual([{ value: 80, label: 'reward 80%' }]);
    src.rules = [rule('health', 'validator-health', { network: 'mainnet', nodeIds: [B], uptime: { warning: 95 } })];
    const banded = await statusSnapshot(src);
    expect(banded.validators.find((v) => v.nodeId === B)?.chart.thresholds).toEqual([
      { value: 95, label: 'warning 95%' },
      { value: 80, label: 'reward 80%' },
    ]);
  });

  it("shows the node's own view where a rule reads its API: its version before the service's (which had none), peers, chains, failing checks, the verdict on a silent API", async () => {
    const src = sources([at('avawatch_validator_listed', 'status', A, 1), at('avawatch_validator_version_info', 'health', A, 1, { version: 'unknown' })]);
    src.inventory = [
      { nodeId: A, name: 'alpha', network: 'mainnet', labels: {} },
      { nodeId: B, name: 'bee', network: 'mainnet', labels: {} },
    ];
    src.rules = [rule('node-health', 'node-health', { network: 'mainnet', urls: { [A]: 'http://127.0.0.1:9650', [B]: 'http://127.0.0.1:9651' } })];
    const states = new Map<string, unknown>([
      [A, { version: 'avalanchego/1.14.1', peers: 42, bootstrapped: { P: true, X: true, C: false }, failing: { network: { error: 'no peers', contiguousFailures: 3 }, bls: { error: 'x', contiguousFailures: 1 } }, outside: { active: true, uptime: 99.2 } }],
      [B, { version: 'avalanchego/1.13.0', unreachableSince: 1_772_452_000, unreachable: 'connection refused', outside: { active: false }, apiVerdict: { tier: 'critical', view: 'the service lists no active validation of it', why: 'the service lists no active validation of it' } }],
    ]);
    src.ruleStates = (name) => (name === 'node-health' ? states : undefined);
    const s = await statusSnapshot(src);
    const [alpha, bee] = s.validators;
    expect(alpha?.version).toBe('avalanchego/1.14.1');
    expect(alpha?.rules).toEqual(['node-health', 'status']);
    expect(alpha?.node).toEqual({
      network: 'mainnet', version: 'avalanchego/1.14.1', peers: 42, bootstrapped: { P: true, X: true, C: false }, failing: ['bls', 'network'], off: [],
      api: { answers: true }, outside: 'listed active, uptime 99.2%', verdict: undefined,
    });
    expect(bee?.node?.api).toEqual({ answers: false, since: 1_772_452_000, error: 'connection refused' });
    expect(bee?.node?.verdict).toEqual({ tier: 'critical', text: 'the node is down: the service lists no active validation of it' });
    // A node only its own API names (urls, no inventory) has a tile too.
    src.inventory = undefined;
    expect((await statusSnapshot(src)).validators.map((v) => [v.nodeId, v.node?.version])).toEqual([
      [A, 'avalanchego/1.14.1'],
      [B, 'avalanchego/1.13.0'],
    ]);
  });

  it('colours by the worst firing severity, never calls an unknown NodeID OK, and keeps its newest event for the history window', async () => {
    const alert = (node: string, severity: string): FiringAlert => ({ rule: 'r', key: `${node}${severity}`, subject: node, severity, summary: '', labels: { node, network: 'mainnet' }, details: {}, tier: '', startsAt: '2026-03-02T11:00:00.000Z' });
    const src = sources([at('avawatch_validator_listed', 'status', A, 1), at('avawatch_validator_listed', 'status', B, 0)], [alert(A, 'warning'), alert(A, 'critical'), alert(A, 'info')]);
    const event = (node: string, network: string, summary: string): HistoryEntry => ({ id: 1, at: Date.parse('2026-03-01T12:00:00Z'), rule: 'end', kind: 'validation-end', status: 'event', severity: 'critical', subject: node, summary, labels: { node, network }, details: {} });
    let since: number | undefined;
    src.historyWindowMs = 7 * 86_400_000;
    src.lastEvents = (from) => {
      since = from;
      return [event(B, 'fuji', 'on another network'), event(A, 'mainnet', `${A} validation ended without a reward`)];
    };
    const s = await statusSnapshot(src);
    const byNode = new Map(s.validators.map((v) => [v.nodeId, v]));
    expect(byNode.get(A)?.verdict).toMatchObject({ firing: 3, worst: 'critical' });
    expect(byNode.get(B)?.verdict).toMatchObject({ firing: 0, unlisted: true });
    expect(since).toBe(Date.parse('2026-03-02T12:00:00Z') - 7 * 86_400_000);
    expect(byNode.get(A)?.lastEvent).toEqual({ at: Date.parse('2026-03-01T12:00:00Z') / 1000, severity: 'critical', rule: 'end', summary: `${A} validation ended without a reward` });
    expect(byNode.get(B)?.lastEvent).toBeUndefined();
  });

  it('knows the first run: no inventory validator and no rule naming a NodeID', async () => {
    expect((await statusSnapshot(sources([]))).noValidators).toBe(true);
    const named = sources([]);
    named.rules = [rule('status', 'validator-status', { network: 'mainnet', nodeIds: [A] })];
    expect((await statusSnapshot(named)).noValidators).toBe(false);
    const listed = sources([]);
    listed.inventory = [{ nodeId: A, name: 'alpha', network: 'mainnet', labels: {} }];
    expect((await statusSnapshot(listed)).noValidators).toBe(false);
  });

  it("reads the least downtime budget over the views, the requirement, and an auto-renewed validator's cycle", async () => {
    const s = await statusSnapshot(
      sources([
        at('avawatch_validator_status', 'status', A, 1, { status: 'active' }),
        at('avawatch_validator_downtime_budget_seconds', 'health', A, 414_720, { view: 'service' }),
        at('avawatch_validator_downtime_budget_seconds', 'health', A, 300_000, { view: 'node' }),
        at('avawatch_validator_uptime_requirement_percent', 'health', A, 90),
        at('avawatch_validator_cycle_end_timestamp_seconds', 'health', A, 1_800_000_000),
        at('avawatch_validator_next_period_seconds', 'health', A, 0),
      ]),
    );
    expect(s.validators[0]).toMatchObject({ budget: { seconds: 300_000, view: 'node' }, requirement: 90, cycleEnd: 1_800_000_000, nextPeriod: 0 });
  });

  it('reads each chart from the history window, and the last day of the timeline with the validator and the transactions it names', async () => {
    const asked: unknown[] = [];
    const src = sources([at('avawatch_validator_listed', 'status', A, 1)]);
    src.history = (series, entity, since) => {
      asked.push([series, entity, since]);
      return [{ series, entity, at: 1_000, value: 99 }];
    };
    src.historyWindowMs = 86_400_000;
    src.inventory = [{ nodeId: A, name: 'ay', network: 'mainnet', labels: {} }];
    const entry: HistoryEntry = { id: 1, at: Date.parse('2026-03-02T11:00:00Z'), rule: 'status', kind: 'validator-status', status: 'event', severity: 'critical', subject: A, summary: 'ended without a reward', labels: { node: A, network: 'mainnet' }, details: { 'Staking tx': 'tx1', 'Reward tx': '', Other: 'x' } };
    let query: unknown;
    src.timeline = (q) => {
      query = q;
      return [entry];
    };
    const s = await statusSnapshot(src);
    expect(asked).toEqual([['uptime_percent', A, Date.parse('2026-03-01T12:00:00Z')]]);
    expect(s.validators[0]?.chart.points).toEqual([{ at: 1, value: 99 }]);
    expect(query).toEqual({ since: Date.parse('2026-03-01T12:00:00Z'), limit: 50 });
    expect(s.timeline).toEqual([{ at: entry.at / 1000, status: 'event', severity: 'critical', rule: 'status', summary: 'ended without a reward', validator: 'ay', network: 'mainnet', node: A, txs: ['tx1'] }]);
  });

  it('shows each receiver: enabled or why not, its outbox rows, and its last error scrubbed', async () => {
    const src = sources([]);
    src.receivers = () => [
      { name: 'slack', type: 'slack', disabled: undefined },
      { name: 'mail', type: 'email', disabled: 'smtp.host is empty' },
    ];
    src.receiverStats = () => [
      { receiver: 'slack', lastSuccess: 5_000, pending: 2, dead: 1, lastError: 'POST https://hooks.slack.com/services/SECRET failed', lastErrorAt: 6_000 },
      { receiver: 'old', lastSuccess: undefined, pending: 1, dead: 0, lastError: undefined, lastErrorAt: undefined },
    ];
    src.redact = (t) => t.replaceAll('https://hooks.slack.com/services/SECRET', '[redacted]');
    const s = await statusSnapshot(src);
    expect(s.receivers).toEqual([
      { name: 'slack', type: 'slack', disabled: undefined, lastSuccess: 5, pending: 2, dead: 1, lastError: 'POST [redacted] failed', lastErrorAt: 6 },
      { name: 'mail', type: 'email', disabled: 'smtp.host is empty', lastSuccess: undefined, pending: 0, dead: 0, lastError: undefined, lastErrorAt: undefined },
      { name: 'old', type: '?', disabled: 'no longer in the config', lastSuccess: undefined, pending: 1, dead: 0, lastError: undefined, lastErrorAt: undefined },
    ]);
  });

  it('calls a data source limited while a 429 pauses it, blind when every rule reading it fails', async () => {
    const src = sources([]);
    src.rules = [rule('status', 'validator-status', { network: 'mainnet', nodeIds: [A] })];
    src.limiters.data.observe({ 'retry-after': '120' }, 429);
    let s = await statusSnapshot(src);
    expect(s.dataSources[0]).toMatchObject({ name: 'Data API', state: 'limited' });
    expect(s.dataSources[0]?.why).toMatch(/^the service answered 429: paused until \d\d:\d\d:\d\d UTC; 1,000 CU left today$/);
    expect(s.dataSources[1]).toEqual({ name: 'Metrics API', state: 'unused', why: 'no rule reads it' });

    const calm = sources([]);
    calm.rules = src.rules;
    calm.failures.failed('status', 'HTTP 502', 0);
    s = await statusSnapshot(calm);
    expect(s.dataSources[0]).toEqual({ name: 'Data API', state: 'blind', why: 'every rule reading it fails (1); status: HTTP 502' });
  });
});
