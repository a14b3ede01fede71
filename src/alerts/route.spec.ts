import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import { resolveRoutes } from './route.js';

const route = configSchema.parse({
  route: {
    receivers: ['ops'],
    groupWait: '10s',
    routes: [
      { match: { severity: 'critical' }, receivers: ['pager'], continue: true, groupBy: ['rule', 'node'] },
      { matchRe: { node: 'NodeID-7X.*' }, receivers: ['team-a'], routes: [{ match: { network: 'fuji' }, receivers: ['team-a-test'] }] },
      { match: { team: 'b' }, receivers: ['team-b'] },
    ],
  },
}).route;

const targets = (labels: Record<string, string>, rule?: string[]) => resolveRoutes(route, labels, rule).map((t) => `${t.receiver} ${t.groupKey} wait=${t.groupWaitMs}`);

describe('routing', () => {
  it('lands on the root when no child route matches, grouped by rule', () => {
    expect(targets({ rule: 'r1', severity: 'warning' })).toEqual(['ops root{rule="r1"} wait=10000']);
  });

  it('stops at the first match unless it says continue; inherits what it leaves out', () => {
    expect(targets({ rule: 'r1', severity: 'critical', node: 'NodeID-7Xhw', team: 'b' })).toEqual([
      'pager root.0{rule="r1",node="NodeID-7Xhw"} wait=10000',
      'team-a root.1{rule="r1"} wait=10000',
    ]);
  });

  it('descends into nested routes; matchRe is anchored', () => {
    expect(targets({ rule: 'r1', node: 'NodeID-7Xhw', network: 'fuji' })).toEqual(['team-a-test root.1.0{rule="r1"} wait=10000']);
    expect(targets({ rule: 'r1', node: 'xNodeID-7Xhw' })).toEqual(['ops root{rule="r1"} wait=10000']);
  });

  it('a rule that names receivers bypasses the tree', () => {
    expect(targets({ rule: 'r1', severity: 'critical' }, ['mail'])).toEqual(['mail rule{rule="r1"} wait=10000']);
  });
});
