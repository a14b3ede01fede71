import { describe, expect, it } from 'vitest';
import type { LoadedRule } from '../config/load.js';
import { entityFailingCondition, FailureCounts, failingCondition } from './failing.js';

const T = Date.parse('2026-11-29T09:00:00Z');
const rule = { name: 'my-validators', kind: 'validator-status', labels: { team: 'core' } } as unknown as LoadedRule;

describe('rule-failing: what an operator reads when a rule cannot see', () => {
  it('counts a rule’s failures in a row from the first; a success starts over; a skipped tick keeps the real error and cause', () => {
    const f = new FailureCounts();
    const cause = { key: 'data-service', labels: { source: 'data-service' }, subject: 'the data service', what: 'the data service answers 503' };
    f.failed('r', 'HTTP 503', T, false, cause);
    expect(f.failed('r', 'the last evaluation overran', T + 60_000, true)).toEqual({ count: 2, since: T, error: 'HTTP 503', cause });
    expect(f.failed('r', 'HTTP 500', T + 120_000)).toEqual({ count: 3, since: T, error: 'HTTP 500', cause: undefined });
    // A skipped tick with no run before it is the error there is.
    expect(f.failed('s', 'the last evaluation overran', T, true).error).toBe('the last evaluation overran');
    expect(f.failing(3).map((r) => r.rule)).toEqual(['r']);
    expect(f.failing(1).map((r) => r.rule)).toEqual(['r', 's']);
    expect(f.run('r')?.count).toBe(3);
    f.succeeded('r');
    expect([f.count('r'), f.run('r'), f.failing(1).map((r) => r.rule)]).toEqual([0, undefined, ['s']]);
  });

  it('counts each entity’s failed lookups apart: one that answers again ends its run, the others go on; forget drops all', () => {
    const f = new FailureCounts();
    f.entitiesEvaluated('r', { 'NodeID-a': 'HTTP 503', 'NodeID-b': 'timeout' }, T);
    expect(f.entitiesEvaluated('r', { 'NodeID-b': 'timeout' }, T + 60_000)).toEqual([{ entity: 'NodeID-b', count: 2, since: T, error: 'timeout' }]);
    expect(f.entitiesEvaluated('r', {}, T + 120_000)).toEqual([]);
    expect(f.entities('r')).toEqual([]);
    f.entitiesEvaluated('r', { 'NodeID-a': 'HTTP 503' }, T);
    f.failed('r', 'boom', T);
    f.forget('r');
    expect([f.entities('r'), f.count('r')]).toEqual([[], 0]);
  });

  it('the blind rule’s alert: its words, its labels for routes and silences, its details', () => {
    expect(failingCondition(rule, { count: 3, since: T, error: 'HTTP 503' }, 'warning')).toEqual({
      key: 'failing',
      subject: 'my-validators',
      severity: 'warning',
      summary: 'rule "my-validators" is blind: its last 3 evaluations failed (HTTP 503)',
      resolvedSummary: 'rule "my-validators" evaluates again',
      labels: { team: 'core', alertname: 'rule-failing', rule: 'my-validators', severity: 'warning' },
      details: { Error: 'HTTP 503', 'Failing since': '2026-11-29T09:00:00.000Z', Kind: 'validator-status' },
    });
  });

  it('one entity it cannot see: named in the words, an `entity` label, and its own key', () => {
    expect(entityFailingCondition(rule, { entity: 'NodeID-a', count: 2, since: T, error: 'timeout' }, 'critical')).toEqual({
      key: 'entity:NodeID-a',
      subject: 'NodeID-a',
      severity: 'critical',
      summary: 'rule "my-validators" cannot see NodeID-a: its last 2 lookups failed (timeout)',
      resolvedSummary: 'rule "my-validators" sees NodeID-a again',
      labels: { team: 'core', alertname: 'rule-failing', rule: 'my-validators', severity: 'critical', entity: 'NodeID-a' },
      details: { Entity: 'NodeID-a', Error: 'timeout', 'Failing since': '2026-11-29T09:00:00.000Z', Kind: 'validator-status' },
    });
  });

  it('one entity of an inventory validator carries its NodeID as `node` (exactly: a key it composes too); another entity none', () => {
    const alpha = { name: 'alpha', nodeId: 'NodeID-a', network: 'mainnet', labels: {} };
    const watched = { ...rule, validators: { 'NodeID-a': alpha } } as unknown as LoadedRule;
    const nodeOf = (entity: string) => entityFailingCondition(watched, { entity, count: 2, since: T, error: 'timeout' }, 'critical').labels['node'];
    expect([nodeOf('NodeID-a'), nodeOf('NodeID-a:c-chain'), nodeOf('NodeID-ab'), nodeOf('0xdelegation'), nodeOf('p-chain')]).toEqual(['NodeID-a', 'NodeID-a', undefined, undefined, undefined]);
  });
});
