import { describe, expect, it } from 'vitest';
import { ruleKinds } from '../rules/registry.js';
import { keyDetails } from './key-details.js';

describe('key details: what a grouped line carries of an alert', () => {
  it('every kind declares some', () => {
    const without = Object.values(ruleKinds).filter((k) => (k.keyDetails ?? []).length === 0).map((k) => k.kind);
    expect(without).toEqual([]);
  });

  it("the kind's, in its order, those the alert has and its summary does not say, two at most; a failing rule's error", () => {
    expect(keyDetails({ kind: 'validator-health', summary: 'N is old', details: { Node: 'N', Version: 'avalanche/1.13.2', Uptime: '84%', Reachability: '90%' } })).toEqual([
      ['Uptime', '84%'],
      ['Version', 'avalanche/1.13.2'],
    ]);
    expect(keyDetails({ kind: 'rule-failing', summary: 'rule r is blind', details: { Error: 'HTTP 503', Kind: 'validator-health' } })).toEqual([['Error', 'HTTP 503']]);
    expect(keyDetails({ kind: 'no-such-kind', summary: '', details: { Error: 'x' } })).toEqual([]);
    // What the summary already says is not said twice.
    expect(keyDetails({ kind: 'address-activity', summary: 'received 1000000 USDC from 0x1f', details: { Amount: '1000000', Token: 'USDC' } })).toEqual([]);
  });
});
