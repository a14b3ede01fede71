import { describe, expect, it } from 'vitest';
import { ruleKinds } from '../rules/registry.js';
import { keyDetails } from './key-details.js';

describe('key details: what a grouped line carries of an alert', () => {
  it('every kind declares some', () => {
    const without = Object.values(ruleKinds).filter((k) => (k.keyDetails ?? []).length === 0).map((k) => k.kind);
    expect(without).toEqual([]);
  });

  it("the kind's, in its order, those the alert has, two at most; a failing rule's error", () => {
    expect(keyDetails({ kind: 'validator-health', details: { Node: 'N', Version: 'avalanche/1.13.2', Uptime: '84%', Reachability: '90%' } })).toEqual([
      ['Uptime', '84%'],
      ['Version', 'avalanche/1.13.2'],
    ]);
    expect(keyDetails({ kind: 'rule-failing', details: { Error: 'HTTP 503', Kind: 'validator-health' } })).toEqual([['Error', 'HTTP 503']]);
    expect(keyDetails({ kind: 'no-such-kind', details: { Error: 'x' } })).toEqual([]);
  });
});
