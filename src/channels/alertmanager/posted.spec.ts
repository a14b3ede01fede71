import { describe, expect, it } from 'vitest';
import type { AlertMessage } from '../types.js';
import { PostedAlerts, type PostableAlert } from './posted.js';

// What a post to Alertmanager must end besides what it carries: the label set an alert's
// condition left (an escalation changes `threshold`), so Alertmanager does not keep it firing.

const MINUTE = 60_000;
const msg = (status: AlertMessage['status'] = 'firing', o: Partial<AlertMessage> = {}): AlertMessage => ({
  alertId: 1,
  rule: 'ending',
  kind: 'validation-end',
  status,
  severity: 'critical',
  subject: 'N',
  summary: 'N ends soon',
  labels: {},
  details: {},
  at: '2025-01-01T00:00:00.000Z',
  conditionKey: 'N',
  ...o,
});
const alert = (threshold: string, endsAt: number, alertname = 'ending'): PostableAlert => ({
  labels: { alertname, node: 'N', threshold },
  annotations: {},
  startsAt: new Date(0).toISOString(),
  endsAt: new Date(endsAt).toISOString(),
  generatorURL: '',
});
const ended = (alerts: PostableAlert[]) => alerts.map((a) => `${a.labels['threshold']} ended ${Date.parse(a.endsAt)}`);

describe('the label sets a post to Alertmanager ends', () => {
  it('an escalation ends the label set posted before, at the time of the post', () => {
    const posted = new PostedAlerts(MINUTE);
    posted.record([msg()], [alert('14d', 15 * MINUTE)], 0);
    expect(ended(posted.replaced([msg()], [alert('3d', 20 * MINUTE)], 5 * MINUTE))).toEqual([`14d ended ${5 * MINUTE}`]);
    expect(posted.replaced([msg()], [alert('14d', 20 * MINUTE)], 5 * MINUTE)).toEqual([]);
  });

  it('a label set already past its endsAt is gone from Alertmanager: nothing to end', () => {
    const posted = new PostedAlerts(MINUTE);
    posted.record([msg()], [alert('14d', 15 * MINUTE)], 0);
    expect(posted.replaced([msg()], [alert('3d', 40 * MINUTE)], 15 * MINUTE)).toEqual([]);
    expect(ended(posted.replaced([msg()], [alert('3d', 40 * MINUTE)], 15 * MINUTE - 1))).toEqual([`14d ended ${15 * MINUTE - 1}`]);
  });

  it('an event (no condition key) is never remembered nor ended; neither is an alert of another rule or name', () => {
    const posted = new PostedAlerts(MINUTE);
    const { conditionKey: _, ...event } = msg('event');
    posted.record([event], [alert('14d', 15 * MINUTE)], 0);
    expect(posted.replaced([event], [alert('3d', 15 * MINUTE)], MINUTE)).toEqual([]);
    posted.record([msg()], [alert('14d', 15 * MINUTE)], 0);
    expect(posted.replaced([msg('firing', { rule: 'other' })], [alert('3d', 15 * MINUTE)], MINUTE)).toEqual([]);
    expect(posted.replaced([msg()], [alert('3d', 15 * MINUTE, 'rule-failing')], MINUTE)).toEqual([]);
    expect(posted.replaced([msg('firing', { conditionKey: 'M' })], [alert('3d', 15 * MINUTE)], MINUTE)).toEqual([]);
  });

  it('a resolved alert is forgotten; firing again with other labels ends nothing', () => {
    const posted = new PostedAlerts(MINUTE);
    posted.record([msg()], [alert('14d', 15 * MINUTE)], 0);
    posted.record([msg('resolved')], [alert('14d', MINUTE)], MINUTE);
    expect(posted.replaced([msg()], [alert('3d', 20 * MINUTE)], 2 * MINUTE)).toEqual([]);
  });

  it('a slow post that ends after a newer one does not overwrite what the newer one posted', () => {
    const posted = new PostedAlerts(MINUTE);
    posted.record([msg()], [alert('3d', 20 * MINUTE)], 10_000);
    posted.record([msg()], [alert('14d', 20 * MINUTE)], 5_000);
    expect(posted.replaced([msg()], [alert('3d', 20 * MINUTE)], 30_000)).toEqual([]);
    // One that started at the same time does.
    posted.record([msg()], [alert('7d', 20 * MINUTE)], 10_000);
    expect(ended(posted.replaced([msg()], [alert('3d', 20 * MINUTE)], 30_000))).toEqual(['7d ended 30000']);
  });

  it('in one batch, only the final label set of a condition stays firing; a resolution in it is not re-ended', () => {
    const posted = new PostedAlerts(MINUTE);
    const batch = [msg(), msg(), msg('resolved')];
    expect(ended(posted.replaced(batch, [alert('7d', MINUTE), alert('3d', MINUTE), alert('1d', MINUTE)], 100))).toEqual(['7d ended 100', '3d ended 100']);
    expect(posted.replaced([msg(), msg()], [alert('3d', MINUTE), alert('3d', MINUTE)], 100)).toEqual([]);
  });

  it('two conditions in one batch each keep their labels firing; each escalation ends only its own old label set', () => {
    const posted = new PostedAlerts(MINUTE);
    const node = (key: string, threshold: string): PostableAlert => ({ ...alert(threshold, 20 * MINUTE), labels: { alertname: 'ending', node: key, threshold } });
    expect(posted.replaced([msg(), msg('firing', { conditionKey: 'M' })], [node('N', '14d'), node('M', '7d')], 0)).toEqual([]);
    posted.record([msg(), msg('firing', { conditionKey: 'M' })], [node('N', '14d'), node('M', '7d')], 0);
    const next = posted.replaced([msg(), msg('firing', { conditionKey: 'M' })], [node('N', '3d'), node('M', '7d')], MINUTE);
    expect(next.map((a) => `${a.labels['node']} ${a.labels['threshold']}`)).toEqual(['N 14d']);
  });

  it('the same labels in another order are the same label set: nothing is ended', () => {
    const posted = new PostedAlerts(MINUTE);
    posted.record([msg()], [alert('14d', 15 * MINUTE)], 0);
    const reordered = { ...alert('14d', 20 * MINUTE), labels: { threshold: '14d', node: 'N', alertname: 'ending' } };
    expect(posted.replaced([msg()], [reordered], MINUTE)).toEqual([]);
    expect(posted.replaced([msg(), msg()], [reordered, alert('14d', 20 * MINUTE)], MINUTE)).toEqual([]);
  });

  it('a firing notification without a condition key (queued before keys were stored) is neither remembered nor ended', () => {
    const posted = new PostedAlerts(MINUTE);
    const { conditionKey: _, ...old } = msg();
    expect(posted.replaced([old, old], [alert('14d', 15 * MINUTE), alert('3d', 15 * MINUTE)], 0)).toEqual([]);
    posted.record([old], [alert('14d', 15 * MINUTE)], 0);
    expect(posted.replaced([old], [alert('3d', 15 * MINUTE)], MINUTE)).toEqual([]);
  });

  it('a condition resolved and firing again in one batch: its resolution is posted once, not ended again', () => {
    const posted = new PostedAlerts(MINUTE);
    expect(posted.replaced([msg('resolved'), msg()], [alert('14d', 0), alert('3d', 20 * MINUTE)], 0)).toEqual([]);
  });

  it('an alert still firing is kept when those past their endsAt are dropped', () => {
    const posted = new PostedAlerts(MINUTE);
    posted.record([msg()], [alert('14d', 15 * MINUTE)], 0);
    // A post 2 minutes later, of another condition: alerts that ended by then are dropped.
    posted.record([msg('firing', { conditionKey: 'M' })], [alert('7d', 2 * MINUTE)], 2 * MINUTE);
    expect(ended(posted.replaced([msg()], [alert('3d', 20 * MINUTE)], 3 * MINUTE))).toEqual([`14d ended ${3 * MINUTE}`]);
  });
});
