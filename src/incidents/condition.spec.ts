import { describe, expect, it } from 'vitest';
import { child } from '../../test/helpers/incidents-world.js';
import { incidentCondition, listedValidators, percent } from './condition.js';
import type { Incident } from './types.js';

const host: Incident = {
  key: 'incident:group:mainnet:host=h1',
  scope: 'group',
  group: 'host=h1',
  network: 'mainnet',
  severity: 'critical',
  members: [5, 6, 7, 8, 9].map((i) => child(i, 'node-health/down', 0, { severity: 'critical' })),
  validators: ['v5', 'v6', 'v7', 'v8', 'v9'],
  networkShare: 0.031,
  ownShare: 0.5,
};

const network: Incident = {
  key: 'incident:network:mainnet:validator-health/uptime',
  scope: 'network',
  network: 'mainnet',
  family: 'validator-health/uptime',
  severity: 'warning',
  members: [0, 1].map((i) => child(i, 'validator-health/uptime', 0)),
  validators: ['v0', 'v1'],
  networkShare: 0.7,
};

describe('an incident as an alert', () => {
  it('a group: says which group, how many validators, both shares, and lists them', () => {
    const c = incidentCondition(host);
    expect(c.summary).toBe('host h1 on mainnet: 5 validators — 50 % of your stake, 3.1 % of the network\'s');
    expect(c.labels).toEqual({ alertname: 'incident', rule: 'avawatch', scope: 'group', group: 'host=h1', network: 'mainnet', severity: 'critical' });
    expect(c.details).toMatchObject({ Scope: 'your group host=h1', "Share of the network's stake": '3.1 %', 'Share of your stake': '50 %', Validators: 'v5, v6, v7, v8, v9' });
    expect(c.key).toBe(host.key);
  });

  it('network-wide: says so and the family; an unknown share is left out, not shown as 0', () => {
    const c = incidentCondition(network);
    expect(c.summary).toBe('network-wide on mainnet: validator-health/uptime for 2 validators — 70 % of the network\'s');
    expect(c.labels).toEqual({ alertname: 'incident', rule: 'avawatch', scope: 'network', family: 'validator-health/uptime', network: 'mainnet', severity: 'warning' });
    expect(Object.keys(c.details)).not.toContain('Share of your stake');
  });

  it('the shares stay out of the labels: the same incident with other shares has the same labels', () => {
    expect(incidentCondition({ ...host, networkShare: 0.2, ownShare: 0.9 }).labels).toEqual(incidentCondition(host).labels);
  });

  it('its resolution names every validator it ever held', () => {
    const earlier = incidentCondition({ ...host, validators: ['v4', 'v5'] });
    const now = incidentCondition(host, listedValidators(earlier));
    expect(now.resolvedDetails).toEqual({ Validators: 'v4, v5, v6, v7, v8, v9' });
    expect(now.resolvedSummary).toBe('over: host h1 on mainnet, 6 validators held');
  });

  it.each([
    [0.5, '50 %'],
    [0.031, '3.1 %'],
    [0.0004, '0.04 %'],
    [0, '0 %'],
    [1, '100 %'],
  ])('percent(%s) is %s', (share, text) => {
    expect(percent(share)).toBe(text);
  });
});
