import { describe, expect, it } from 'vitest';
import type { FiringAlert } from '../alerts/view.js';
import { Limiter } from '../api/limiter.js';
import { FailureCounts } from '../engine/failing.js';
import { createMetrics } from '../metrics/registry.js';
import type { GaugeSample } from '../types.js';
import { statusSnapshot, type StatusSources } from './snapshot.js';

const A = 'NodeID-A';
const B = 'NodeID-B';

function sources(samples: GaugeSample[], firing: FiringAlert[] = []): StatusSources {
  const metrics = createMetrics({ version: 't', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] });
  const limiter = () => new Limiter({ limits: { perMinute: 100, perDay: 1000 }, maxWaitMs: 0 });
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
    expect(s.validators).toEqual([
      { network: 'mainnet', nodeId: B, status: 'not listed', end: 1_000, uptimePercent: undefined, rules: ['ending', 'status'] },
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
