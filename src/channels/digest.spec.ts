import { describe, expect, it } from 'vitest';
import type { AlertMessage } from '../base/types.js';
import { digestMessage, digestPattern, digestSchema, digestSlot, nextDigestAt, type DigestConfig } from './digest.js';

// Parsed in each test, not at load nor in a hook: a schema that refuses it fails the tests
// (mutation testing counts failed tests, not a file that fails to load).
const daily = (): DigestConfig => digestSchema.parse({ at: '09:00', location: 'Europe/Paris' });

function message(rule: string, summary: string, o: Partial<AlertMessage> = {}): AlertMessage {
  return { alertId: 1, rule, kind: 'k', status: 'event', severity: 'info', subject: 's', summary, labels: {}, details: {}, at: '2026-01-05T10:00:00.000Z', ...o };
}

describe('digest slots', () => {
  it('is 09:00 on the wall clock of its location, summer and winter', () => {
    expect(nextDigestAt(daily(), Date.parse('2026-01-05T09:30:00Z'))).toBe(Date.parse('2026-01-06T08:00:00Z'));
    expect(nextDigestAt(daily(), Date.parse('2026-07-05T06:00:00Z'))).toBe(Date.parse('2026-07-05T07:00:00Z'));
    // The morning clocks move forward: 09:00 is still 09:00 in Paris.
    expect(nextDigestAt(daily(), Date.parse('2026-03-29T06:00:00Z'))).toBe(Date.parse('2026-03-29T07:00:00Z'));
  });

  it('a slot is strictly after now: a notification made at 09:00 waits for the next one', () => {
    expect(nextDigestAt(daily(), Date.parse('2026-01-06T08:00:00Z'))).toBe(Date.parse('2026-01-07T08:00:00Z'));
  });

  it('every 6h from 07:30 UTC: 01:30, 07:30, 13:30, 19:30', () => {
    const d = digestSchema.parse({ every: '6h', at: '07:30' });
    expect(digestPattern(d)).toBe('0 30 1,7,13,19 * * *');
    expect(nextDigestAt(d, Date.parse('2026-01-05T14:00:00Z'))).toBe(Date.parse('2026-01-05T19:30:00Z'));
  });

  it('only the chosen severities wait; without a digest nothing does', () => {
    const now = Date.parse('2026-01-05T09:30:00Z');
    expect(digestSlot(daily(), 'info', now)).toBe(Date.parse('2026-01-06T08:00:00Z'));
    expect(digestSlot(daily(), 'critical', now)).toBeUndefined();
    expect(digestSlot(undefined, 'info', now)).toBeUndefined();
  });

  it('says what is wrong with a setting', () => {
    const issues = (input: unknown) => digestSchema.safeParse(input).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ every: '5h' })).toEqual(['every: must be a whole number of hours that divides a day: 1h, 2h, 3h, 4h, 6h, 8h, 12h or 24h']);
    expect(issues({ every: '90m' })).toEqual(['every: must be a whole number of hours that divides a day: 1h, 2h, 3h, 4h, 6h, 8h, 12h or 24h']);
    for (const every of ['1h', '8h', '24h']) expect(issues({ every })).toBeUndefined();
    expect(issues({ at: '9am' })).toEqual(['at: expected HH:MM (24-hour), e.g. "09:00"']);
    expect(issues({ location: 'Mars/Olympus' })).toEqual(['location: "Mars/Olympus" is not a time zone known to this system (an IANA name such as Europe/Paris or UTC)']);
    expect(issues({ severities: [] })?.[0]).toMatch(/^severities: /);
  });

  it('without settings: info notifications wait for 09:00 UTC each day', () => {
    expect(digestSchema.parse({})).toEqual({ severities: ['info'], every: 86_400_000, at: '09:00', location: 'UTC' });
  });

  it('takes every whole number of hours that divides a day, and only those', () => {
    const ok = (every: string) => digestSchema.safeParse({ every }).success;
    expect(['1h', '2h', '3h', '4h', '6h', '8h', '12h', '24h', '1d'].filter(ok)).toHaveLength(9);
    expect(['30m', '5h', '7h', '9h', '16h', '48h', '2d', '0s', 'daily'].filter(ok)).toEqual([]);
  });

  it('takes a time of day from 00:00 to 23:59, written HH:MM', () => {
    const ok = (at: string) => digestSchema.safeParse({ at }).success;
    expect(['00:00', '09:05', '19:59', '20:00', '23:59'].filter(ok)).toHaveLength(5);
    expect(['24:00', '29:00', '30:00', '9:00', '09:5', '09:60', '09:0x', 'a09:00', '09:00 ', ' 09:00', '0900'].filter(ok)).toEqual([]);
  });

  it('hourly: a slot at every hour, at the minute of `at`', () => {
    const d = digestSchema.parse({ every: '1h', at: '00:15' });
    expect(digestPattern(d)).toBe(`0 15 ${Array.from({ length: 24 }, (_, h) => h).join(',')} * * *`);
    expect(nextDigestAt(d, Date.parse('2026-01-05T14:15:00Z'))).toBe(Date.parse('2026-01-05T15:15:00Z'));
  });
});

describe('the digest message', () => {
  it('counts by rule, busiest first, quoting the latest summaries', () => {
    const messages = [
      ...Array.from({ length: 5 }, (_, i) => message('staking', `stake ${i}`)),
      message('exports', 'export done', { status: 'resolved', severity: 'warning' }),
    ];
    const m = digestMessage('ops', messages, daily());
    expect(m.summary).toBe('Digest for ops: 6 notification(s) since 2026-01-05T10:00:00.000Z (staking 5, exports 1)');
    expect(m.severity).toBe('warning');
    expect(m.status).toBe('event');
    expect(m.details).toEqual({
      'staking: 5': '• stake 4 · • stake 3 · • stake 2 (+2 more)',
      'exports: 1': '[resolved] export done',
      Digest: 'every 1d at 09:00 Europe/Paris',
    });
  });

  it('is one event for the receiver: the latest alert\'s id and time, the earliest named in the summary, the worst severity', () => {
    const m = digestMessage('ops', [
      message('staking', 'late', { alertId: 7, at: '2026-01-05T11:00:00.000Z', status: 'firing' }),
      message('staking', 'early', { alertId: 3, at: '2026-01-05T08:00:00.000Z', severity: 'critical' }),
      message('exports', 'last', { alertId: 9, at: '2026-01-05T10:30:00.000Z' }),
    ], daily());
    expect(m).toMatchObject({
      alertId: 9,
      rule: 'digest',
      kind: 'digest',
      subject: '3 notification(s)',
      severity: 'critical',
      labels: { alertname: 'digest', receiver: 'ops' },
      at: '2026-01-05T10:30:00.000Z',
      summary: 'Digest for ops: 3 notification(s) since 2026-01-05T08:00:00.000Z (staking 2, exports 1)',
    });
    expect(m.details['staking: 2']).toBe('• early · [firing] late');
    expect(digestMessage('ops', [message('a', 'x', { severity: 'warning' }), message('a', 'y')], daily()).severity).toBe('warning');
  });

  it('rules with as many notifications go in name order; past 20 rules the rest are counted', () => {
    const rules = Array.from({ length: 23 }, (_, i) => `rule-${String(i).padStart(2, '0')}`);
    const m = digestMessage('ops', [...rules.map((r) => message(r, `${r} news`)), message('rule-22', 'again'), message('rule-21', 'again')], daily());
    const keys = Object.keys(m.details);
    expect(keys.slice(0, 3)).toEqual(['rule-21: 2', 'rule-22: 2', 'rule-00: 1']);
    expect(keys).toHaveLength(22);
    expect(keys).not.toContain('rule-18: 1');
    expect(m.details['Other rules']).toBe('3 notification(s) of 3 more rule(s)');
    expect(m.details['Digest']).toBe('every 1d at 09:00 Europe/Paris');
    expect(Object.keys(digestMessage('ops', rules.slice(0, 20).map((r) => message(r, r)), daily()).details)).not.toContain('Other rules');
    const shuffled = ['staking', 'exports', 'uptime'].map((r) => message(r, r));
    expect(Object.keys(digestMessage('ops', shuffled, daily()).details)).toEqual(['exports: 1', 'staking: 1', 'uptime: 1', 'Digest']);
  });

  it('exactly three summaries are quoted without "+N more"; a receiver without digest settings says "digest"', () => {
    const m = digestMessage('ops', [message('s', 'a'), message('s', 'b'), message('s', 'c')], undefined);
    expect(m.details).toEqual({ 's: 3': '• c · • b · • a', Digest: 'digest' });
    expect(digestMessage('ops', [], undefined)).toMatchObject({ alertId: 0, severity: 'info', at: '1970-01-01T00:00:00.000Z', subject: '0 notification(s)' });
  });
});
