import { describe, expect, it } from 'vitest';
import { formatMatcher, inTimeInterval, parseMatcher, silenceMatches } from './silence.js';
import { mute } from './pipeline/mute.js';

const at = (iso: string) => new Date(iso);

describe('silences and mute windows', () => {
  it('parses name=value and name=~regex, and refuses the rest', () => {
    expect(parseMatcher('node=NodeID-1')).toEqual({ name: 'node', value: 'NodeID-1', regex: false });
    expect(parseMatcher('rule=~val.*')).toEqual({ name: 'rule', value: 'val.*', regex: true });
    expect(() => parseMatcher('node')).toThrow('"node" is not a matcher: write name=value or name=~regex');
    expect(() => parseMatcher('x=~(')).toThrow();
  });

  it('matches every matcher; regexes are anchored', () => {
    const s = { matchers: [parseMatcher('rule=r1'), parseMatcher('node=~NodeID-7.*')] };
    expect(silenceMatches(s, { rule: 'r1', node: 'NodeID-7Xhw' })).toBe(true);
    expect(silenceMatches(s, { rule: 'r1', node: 'xNodeID-7Xhw' })).toBe(false);
    expect(silenceMatches(s, { rule: 'r2', node: 'NodeID-7Xhw' })).toBe(false);
  });

  it('knows weekday ranges (also across Sunday) and times, in UTC', () => {
    const weekend = { name: 'w', weekdays: ['saturday:sunday'] };
    expect(inTimeInterval(weekend, at('2026-01-03T12:00:00Z'))).toBe(true); // Saturday
    expect(inTimeInterval(weekend, at('2026-01-05T12:00:00Z'))).toBe(false); // Monday
    const nights = { name: 'n', weekdays: ['friday:monday'], times: [{ start: '22:00', end: '24:00' }, { start: '00:00', end: '06:00' }] };
    expect(inTimeInterval(nights, at('2026-01-04T23:30:00Z'))).toBe(true); // Sunday night
    expect(inTimeInterval(nights, at('2026-01-04T12:00:00Z'))).toBe(false);
    expect(inTimeInterval(nights, at('2026-01-07T01:00:00Z'))).toBe(false); // Wednesday
  });

  it('a time range starts at its first minute and ends before its last; minutes count', () => {
    const morning = { name: 'm', times: [{ start: '09:30', end: '17:15' }] };
    expect(inTimeInterval(morning, at('2026-01-05T09:29:00Z'))).toBe(false);
    expect(inTimeInterval(morning, at('2026-01-05T09:30:00Z'))).toBe(true);
    expect(inTimeInterval(morning, at('2026-01-05T17:14:00Z'))).toBe(true);
    expect(inTimeInterval(morning, at('2026-01-05T17:15:00Z'))).toBe(false);
  });

  it('one weekday, a range inside the week, a range across Sunday, each to its last day inclusive', () => {
    const at0 = (iso: string, weekdays: string[]) => inTimeInterval({ weekdays }, at(iso));
    // 2026-01-05 is a Monday.
    expect(['05', '06', '07', '08', '09', '10', '11'].map((d) => at0(`2026-01-${d}T12:00:00Z`, ['wednesday']))).toEqual([false, false, true, false, false, false, false]);
    expect(['05', '06', '07', '08', '09', '10', '11'].map((d) => at0(`2026-01-${d}T12:00:00Z`, ['tuesday:thursday']))).toEqual([false, true, true, true, false, false, false]);
    expect(['05', '06', '07', '08', '09', '10', '11'].map((d) => at0(`2026-01-${d}T12:00:00Z`, ['friday:monday']))).toEqual([true, false, false, false, true, true, true]);
    expect(at0('2026-01-05T12:00:00Z', ['tuesday', 'monday'])).toBe(true);
    // A name the config schema would refuse matches no day, rather than every day.
    expect(at0('2026-01-05T12:00:00Z', ['someday'])).toBe(false);
    expect(at0('2026-01-05T12:00:00Z', ['monday:someday'])).toBe(false);
  });

  it('a matcher is a whole name=value: a leading character, a line break or a bad regex in it is refused; a plain value may hold regex characters', () => {
    expect(() => parseMatcher('1node=x')).toThrow('is not a matcher');
    expect(() => parseMatcher('node=a\nb')).toThrow('is not a matcher');
    expect(parseMatcher('node=(')).toEqual({ name: 'node', value: '(', regex: false });
    expect(formatMatcher(parseMatcher('node=~NodeID-7.*'))).toBe('node=~NodeID-7.*');
    expect(formatMatcher(parseMatcher('rule=r1'))).toBe('rule=r1');
  });

  it('a matcher of an empty value matches an alert without the label', () => {
    expect(silenceMatches({ matchers: [parseMatcher('team=')] }, { rule: 'r1' })).toBe(true);
    expect(silenceMatches({ matchers: [parseMatcher('team=~|core')] }, {})).toBe(true);
    expect(silenceMatches({ matchers: [parseMatcher('team=core')] }, {})).toBe(false);
  });

  it('reads weekdays and times on the clock of the interval’s location', () => {
    const berlinNights = { name: 'b', times: [{ start: '00:00', end: '02:00' }], location: 'Europe/Berlin' };
    expect(inTimeInterval(berlinNights, at('2026-01-05T23:30:00Z'))).toBe(true); // 00:30 in Berlin (UTC+1)
    expect(inTimeInterval(berlinNights, at('2026-01-05T01:30:00Z'))).toBe(false); // 02:30 in Berlin
    const tokyoMonday = { name: 't', weekdays: ['monday'], location: 'Asia/Tokyo' };
    expect(inTimeInterval(tokyoMonday, at('2026-01-04T20:00:00Z'))).toBe(true); // Monday 05:00 in Tokyo
  });

  it('says why a notification is muted', () => {
    const silence = { id: 4, matchers: [parseMatcher('node=A')], startsAt: 0, endsAt: Date.parse('2026-01-01T02:00:00Z'), comment: 'upgrade', createdBy: 'me', createdAt: 0 };
    expect(mute({ node: 'A' }, [], [silence], [], at('2026-01-01T01:00:00Z'))).toBe('silenced by #4 until 2026-01-01T02:00:00.000Z: upgrade');
    expect(mute({ node: 'B' }, ['maint'], [silence], [{ name: 'maint', times: [{ start: '00:00', end: '03:00' }], location: 'UTC' }], at('2026-01-01T01:00:00Z'))).toBe('muted by time interval maint');
    expect(mute({ node: 'B' }, [], [silence], [], at('2026-01-01T01:00:00Z'))).toBeUndefined();
  });
});
