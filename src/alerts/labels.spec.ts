import { describe, expect, it } from 'vitest';
import type { LoadedConfig } from '../config/load.js';
import { producibleLabels, producibleValues } from './labels.js';

// What `avawatch silence add` checks a matcher against: a label no alert can carry, or a value
// the config never gives it, is a silence that would mute nothing (src/commands/silence.ts).
const loaded = {
  rules: [
    { name: 'my-validators', labels: { team: 'core' } },
    { name: 'ending', labels: undefined },
  ],
  inventory: [
    { name: 'alpha', labels: { team: 'infra', region: 'eu' } },
    { name: 'beta', labels: {} },
  ],
} as unknown as Pick<LoadedConfig, 'rules' | 'inventory'>;

describe('the labels an alert can carry with a config', () => {
  it('are the common ones, every kind’s, the rules’ own and the inventory’s, sorted once each', () => {
    const names = producibleLabels(loaded);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(names.length);
    for (const name of ['rule', 'severity', 'scope', 'node', 'status', 'team', 'region']) expect(names).toContain(name);
    expect(names).not.toContain('teem');
  });

  it('fix the values of rule, severity, validator and network; a rule’s or validator’s own label has the values they give', () => {
    expect(producibleValues(loaded, 'rule')).toEqual(['my-validators', 'ending', 'avawatch']);
    expect(producibleValues(loaded, 'severity')).toEqual(['info', 'warning', 'critical']);
    expect(producibleValues(loaded, 'validator')).toEqual(['alpha', 'beta']);
    expect(producibleValues(loaded, 'network')).toEqual(expect.arrayContaining(['mainnet', 'fuji']));
    expect(producibleValues(loaded, 'scope')).toEqual(['network', 'group', 'validator']);
    expect(producibleValues(loaded, 'team')).toEqual(['core', 'infra']);
    expect(producibleValues(loaded, 'region')).toEqual(['eu']);
  });

  it('leave open a label a kind sets from what it reads (node, status) and one nothing sets', () => {
    expect(producibleValues(loaded, 'node')).toBeUndefined();
    expect(producibleValues(loaded, 'status')).toBeUndefined();
    expect(producibleValues(loaded, 'alertname')).toBeUndefined();
    expect(producibleValues(loaded, 'nothing-sets-this')).toBeUndefined();
  });
});
