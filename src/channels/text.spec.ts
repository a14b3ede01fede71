import { describe, expect, it } from 'vitest';
import { clipEscaped, fitLines, groupHead, groupLine, groupTitle, groupWorst, mostUrgentFirst, oneLine } from './text.js';

// The chat channels' shared text: what a phone shows of a notification.

const angle = (ch: string): string => (ch === '<' ? '&lt;' : ch);

describe('chain text on one line', () => {
  it('every control character, DEL, C1 and the Unicode line separators become one space; the ends are trimmed', () => {
    expect(oneLine('\u0000a\r\n\tb\u001fc\u007fd\u0085\u009fe\u2028f\u2029g\u0001')).toBe('a b c d e f g');
    expect(oneLine('  kept  inside  ')).toBe('kept  inside');
    expect(oneLine('é € 😀 \u00a0x')).toBe('é € 😀 \u00a0x');
  });
});

describe('clipEscaped: escaped, then cut to the limit with a visible …', () => {
  it('text within the limit is only escaped', () => {
    expect(clipEscaped('a<b', 6, angle)).toBe('a&lt;b');
  });

  it('longer text is cut to exactly the limit, the last character …', () => {
    expect(clipEscaped('abcdefgh', 5, angle)).toBe('abcd…');
    expect(clipEscaped('abcdefgh', 5, angle)).toHaveLength(5);
  });

  it('an escape sequence or a surrogate pair is never split', () => {
    expect(clipEscaped('ab<cdef', 6, angle)).toBe('ab…');
    expect(clipEscaped('ab😀cdef', 4, angle)).toBe('ab…');
    expect(clipEscaped('ab😀cdef', 5, angle)).toBe('ab😀…');
  });
});

describe('fitLines: head, as many items as fit, "+N more", tail', () => {
  const head = ['HEAD'];
  const tail = ['TAIL'];

  it('everything fits: the lines joined, nothing counted', () => {
    expect(fitLines(head, ['a', 'b'], tail, 100)).toBe('HEAD\na\nb\nTAIL');
    expect(fitLines([], ['a'], [], 1)).toBe('a');
  });

  it('room for a "+N more" line is kept until the last item; at the limit everything still shows', () => {
    // HEAD\naaaa\nbbbb\nTAIL is 19; with aaaa, room for "+1 more" (8) is kept: 22.
    expect(fitLines(head, ['aaaa', 'bbbb'], tail, 22)).toBe('HEAD\naaaa\nbbbb\nTAIL');
    expect(fitLines(head, ['aaaa', 'bbbb'], tail, 21)).toBe('HEAD\n+2 more\nTAIL');
  });

  it('what does not fit is counted, within the limit', () => {
    const text = fitLines(head, ['aaaa', 'bbbb', 'cccc'], tail, 22);
    expect(text).toBe('HEAD\naaaa\n+2 more\nTAIL');
    expect(text).toHaveLength(22);
    // The last item is too long: the others show and it is counted.
    const last = fitLines(head, ['aaaa', 'bbbb', 'cccccccccc'], tail, 29);
    expect(last).toBe('HEAD\naaaa\nbbbb\n+1 more\nTAIL');
    expect(fitLines(head, ['aaaa', 'bbbb', 'cccccccccc'], tail, 30)).toBe('HEAD\naaaa\nbbbb\ncccccccccc\nTAIL');
    expect(fitLines(head, ['aaaa', 'bbbb', 'cccccccccc'], tail, 26)).toBe('HEAD\naaaa\n+2 more\nTAIL');
  });

  it('items never listed are counted too, with the channel\'s own words', () => {
    expect(fitLines(head, ['a'], tail, 100, { hidden: 3 })).toBe('HEAD\na\n+3 more\nTAIL');
    expect(fitLines(head, ['aaaa', 'bbbb'], tail, 21, { hidden: 3, more: (n) => `${n} left` })).toBe('HEAD\naaaa\n4 left\nTAIL');
  });
});

describe('a group\'s head, title and lines', () => {
  const a = (o: Partial<{ status: string; severity: string; summary: string; validator: string }>) => ({
    status: o.status ?? 'firing',
    severity: o.severity ?? 'warning',
    summary: o.summary ?? 's',
    rule: 'r',
    kind: 'validator-health',
    labels: (o.validator === undefined ? {} : { validator: o.validator }) as Record<string, string>,
    details: {},
  });

  it('names the validator when every alert is about it, and says "resolved" when all are', () => {
    expect(groupHead([a({ validator: 'alpha' }), a({ validator: 'alpha' })])).toBe('alpha: 2 alerts');
    expect(groupHead([a({ validator: 'alpha' }), a({ validator: 'beta' })])).toBe('2 alerts');
    expect(groupHead([a({ validator: 'alpha' }), a({})])).toBe('2 alerts');
    expect(groupHead([a({ validator: '' }), a({ validator: '' })])).toBe('2 alerts');
    expect(groupHead([a({ status: 'resolved' }), a({ status: 'resolved' })])).toBe('2 resolved');
    expect(groupHead([a({ status: 'resolved' }), a({ status: 'event' })])).toBe('2 alerts');
  });

  it('the most urgent first: firing and events before resolved, then by severity, otherwise in order', () => {
    const order = mostUrgentFirst([
      a({ summary: 'resolved critical', status: 'resolved', severity: 'critical' }),
      a({ summary: 'info', severity: 'info' }),
      a({ summary: 'odd', severity: 'odd' }),
      a({ summary: 'warning 1' }),
      a({ summary: 'critical event', status: 'event', severity: 'critical' }),
      a({ summary: 'warning 2' }),
      a({ summary: 'resolved info', status: 'resolved', severity: 'info' }),
    ]).map((x) => x.summary);
    expect(order).toEqual(['critical event', 'warning 1', 'warning 2', 'info', 'odd', 'resolved critical', 'resolved info']);
  });

  it('the worst still firing; resolved ones do not count', () => {
    expect(groupWorst([a({ severity: 'info' }), a({ severity: 'critical', status: 'resolved' }), a({ severity: 'warning', status: 'event' })])).toBe('warning');
    expect(groupWorst([a({ severity: 'critical', status: 'resolved' })])).toBeUndefined();
  });

  it('the title: the worst severity and the most urgent summary, and how many more', () => {
    expect(groupTitle([a({ summary: 'calm', severity: 'info' }), a({ summary: 'down', severity: 'critical' })])).toEqual({ word: 'CRITICAL', summary: 'down', more: ' (+1 more)' });
    expect(groupTitle([a({ summary: 'back', status: 'resolved' })])).toEqual({ word: 'RESOLVED', summary: 'back', more: '' });
    expect(groupTitle([])).toEqual({ word: 'RESOLVED', summary: '', more: '' });
  });

  it('a line: status, severity, the rule when the group has several, the summary and the key details', () => {
    const uptime = { ...a({ summary: 'alpha uptime 84%' }), details: { Uptime: '84% (the service view)', Node: 'N' } };
    expect(groupLine(uptime, false)).toBe('FIRING WARNING: alpha uptime 84% · Uptime: 84% (the service view)');
    expect(groupLine({ ...uptime, rule: 'health' }, true)).toBe('FIRING WARNING health: alpha uptime 84% · Uptime: 84% (the service view)');
    expect(groupLine({ ...uptime, status: 'pending', details: {} }, false)).toBe('PENDING WARNING: alpha uptime 84%');
  });
});
