import { describe, expect, it } from 'vitest';
import { alertLabels } from './enrich.js';
import { mute } from './mute.js';

describe('the alert pipeline\'s own stages', () => {
  it('enrich: the rule\'s labels, then the kind\'s over them; rule and severity are the rule\'s, whatever either says', () => {
    const rule = { name: 'ending', labels: { team: 'infra', rule: 'spoofed', region: 'eu' } };
    expect(alertLabels(rule, { region: 'us', node: 'NodeID-A', severity: 'info' }, 'critical')).toEqual({ team: 'infra', region: 'us', node: 'NodeID-A', rule: 'ending', severity: 'critical' });
  });

  it('mute: a silence wins over a mute window, and names its id, end and comment', () => {
    const silence = { id: 7, matchers: [{ name: 'node', value: 'NodeID-A', regex: false }], startsAt: 0, endsAt: Date.parse('2026-01-01T02:00:00Z'), comment: 'upgrade', author: 'ops', createdAt: 0 };
    const night = [{ name: 'night', times: [{ start: '00:00', end: '06:00' }], location: 'UTC' }];
    const at = new Date('2026-01-01T01:00:00Z');
    expect(mute({ node: 'NodeID-A' }, ['night'], [silence] as never, night as never, at)).toBe('silenced by #7 until 2026-01-01T02:00:00.000Z: upgrade');
    expect(mute({ node: 'NodeID-B' }, ['night'], [silence] as never, night as never, at)).toBe('muted by time interval night');
    expect(mute({ node: 'NodeID-B' }, [], [silence] as never, night as never, at)).toBeUndefined();
  });
});
