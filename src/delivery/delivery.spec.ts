import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alert, FakeNotifier, newMetrics, testDelivery } from '../../test/helpers/delivery.js';
import { DeliveryError, type Notifier } from '../channels/types.js';
import { SqliteStore, type NewAlert, type StateStore } from '../store/index.js';
import type { Delivery, DeliveryDeps, DeliveryOptions } from './delivery.js';

// The outbox's sender: one message per group, when it is due (groupWait, groupInterval), retried
// with backoff, dead-lettered past maxAge, on a steady clock. What the operator sees of it:
// delivery-operator.spec.ts.

describe('delivery', () => {
  let dir: string;
  let store: StateStore;
  let clock: number;
  let notifier: FakeNotifier;
  let delivery: Delivery;
  let metrics: ReturnType<typeof newMetrics>;
  /** What the journal says (JSON lines, parsed). */
  let logs: Array<Record<string, unknown>>;
  /** A Delivery over this test's store, notifier and clock. */
  const make = (
    options: Partial<DeliveryOptions> = {},
    wall: () => number = () => clock,
    over: StateStore = store,
    notifiers: Notifier[] = [notifier],
    extra: Pick<DeliveryDeps, 'held' | 'digestOf'> = {},
  ): Delivery => testDelivery({ store: over, notifiers, metrics, logs, now: wall, mono: () => clock }, options, extra);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'avawatch-delivery-'));
    store = SqliteStore.open(join(dir, 's.db'));
    clock = 1_000_000;
    notifier = new FakeNotifier('fake');
    metrics = newMetrics();
    logs = [];
    delivery = make();
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends one message per group, in order', async () => {
    await store.commitEvaluation('r', {}, [alert('a', 'g1'), alert('b', 'g2'), alert('c', 'g1')], clock);
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['a', 'c'], ['b']]);
    expect(await store.outbox('sent')).toHaveLength(3);
  });

  it('counts groupWait of later news from the group’s first pending alert, so a late member joins the same message', async () => {
    // The group's first news went out; what follows within groupInterval is later news.
    await store.commitEvaluation('r', {}, [alert('x', 'g', 30_000, 10_000)], clock);
    clock += 1_000;
    await delivery.drain(1_000);
    await store.commitEvaluation('r', {}, [alert('a', 'g', 30_000, 10_000)], clock);
    clock += 3_000;
    await store.commitEvaluation('r', {}, [alert('b', 'g', 30_000, 10_000)], clock);
    clock += 26_999;
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['x']]);
    clock += 1;
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['x'], ['a', 'b']]);
  });

  describe('latency by severity (the shipped route: groupWait 1m, groupInterval 5m)', () => {
    const WAIT = 60_000;
    const INTERVAL = 300_000;
    beforeEach(() => {
      delivery = make({ maxAgeMs: 3_600_000 });
    });
    const news = (subject: string, severity: NewAlert['severity'] = 'warning', status: NewAlert['status'] = 'event') => alert(subject, 'alpha', WAIT, INTERVAL, severity, status);
    /** Commits, then drains at each given offset (ms since the commit); the groups sent so far. */
    const sentBy = async (ms: number) => {
      clock += ms;
      await delivery.drain(1_000);
      return notifier.groups.map((g) => g.join('+'));
    };

    it('the first news of a group leaves 0.8 s after its poll, not after groupWait', async () => {
      await store.commitEvaluation('r', {}, [news('a'), news('b')], clock);
      expect(await store.nextDue('fake')).toBe(clock + 800);
      expect(await sentBy(799)).toEqual([]);
      // Both alerts of the same evaluation go together.
      expect(await sentBy(1)).toEqual(['a+b']);
    });

    it('the wait counts from when the poll began, not the commit: a slow evaluation does not add to it', async () => {
      await store.commitEvaluation('r', {}, [news('down', 'critical')], clock, undefined, undefined, clock - 400);
      expect(await store.nextDue('fake')).toBe(clock + 400);
      expect(await sentBy(400)).toEqual(['down']);
      // An evaluation longer than the wait: 0.1 s, for what the other rules of the poll say.
      await store.commitEvaluation('r', {}, [news('down again', 'critical')], clock, undefined, undefined, clock - 3_000);
      expect(await sentBy(99)).toEqual(['down']);
      expect(await sentBy(1)).toEqual(['down', 'down again']);
    });

    it('a critical after a message of its group leaves after 0.8 s: groupInterval never holds it; a warning still waits and joins the next message', async () => {
      await store.commitEvaluation('r', {}, [news('a')], clock);
      expect(await sentBy(1_000)).toEqual(['a']);
      clock += 10_000;
      await store.commitEvaluation('r', {}, [news('down', 'critical')], clock);
      // The worker wakes for it though its group is throttled.
      expect(await store.nextDue('fake', ['alpha'])).toBe(clock + 800);
      expect(await sentBy(1_000)).toEqual(['a', 'down']);
      await store.commitEvaluation('r', {}, [news('slow')], clock);
      expect(await sentBy(WAIT)).toEqual(['a', 'down']);
      expect(await sentBy(INTERVAL - WAIT - 1)).toEqual(['a', 'down']);
      expect(await sentBy(1)).toEqual(['a', 'down', 'slow']);
    });

    it('the resolution of a critical leaves at once too', async () => {
      await store.commitEvaluation('r', {}, [news('down', 'critical', 'firing')], clock);
      expect(await sentBy(1_000)).toEqual(['down']);
      clock += 30_000;
      await store.commitEvaluation('r', {}, [news('up', 'critical', 'resolved')], clock);
      expect(await sentBy(1_000)).toEqual(['down', 'up']);
    });

    it('a critical flushes the warnings waiting in its group: one message', async () => {
      await store.commitEvaluation('r', {}, [news('a')], clock);
      expect(await sentBy(1_000)).toEqual(['a']);
      await store.commitEvaluation('r', {}, [news('w1')], clock);
      expect(await sentBy(20_000)).toEqual(['a']);
      await store.commitEvaluation('r', {}, [news('down', 'critical')], clock);
      expect(await sentBy(1_000)).toEqual(['a', 'w1+down']);
    });

    it('news after a quiet groupInterval is first news again', async () => {
      await store.commitEvaluation('r', {}, [news('a')], clock);
      expect(await sentBy(1_000)).toEqual(['a']);
      clock += INTERVAL;
      await store.commitEvaluation('r', {}, [news('b')], clock);
      expect(await sentBy(1_000)).toEqual(['a', 'b']);
    });

    it('a restart keeps it: urgency is read from the state file', async () => {
      await store.commitEvaluation('r', {}, [news('a')], clock);
      expect(await sentBy(1_000)).toEqual(['a']);
      await store.commitEvaluation('r', {}, [news('down', 'critical')], clock);
      await store.close();
      store = SqliteStore.open(join(dir, 's.db'));
      delivery = make({ maxAgeMs: 3_600_000 });
      expect(await sentBy(1_000)).toEqual(['a', 'down']);
    });

    it('a failing receiver’s Retry-After still holds a critical', async () => {
      await store.commitEvaluation('r', {}, [news('down', 'critical')], clock);
      notifier.failWith = new DeliveryError('busy', 'http_429', true, 30_000);
      expect(await sentBy(1_000)).toEqual([]);
      notifier.failWith = undefined;
      expect(await sentBy(29_999)).toEqual([]);
      expect(await sentBy(1)).toEqual(['down']);
    });
  });

  it('a group inside its groupInterval waits without holding up other groups', async () => {
    await store.commitEvaluation('r', {}, [alert('a', 'g1', 0, 60_000)], clock);
    await delivery.drain(1_000);
    clock += 1_000;
    await store.commitEvaluation('r', {}, [alert('c', 'g1', 0, 60_000), alert('d', 'g2', 0, 60_000)], clock);
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['a'], ['d']]);
    clock += 60_000;
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['a'], ['d'], ['c']]);
  });

  it('groupInterval counts from a delivery, not a failed attempt', async () => {
    await store.commitEvaluation('r', {}, [alert('a', 'g1', 0, 60_000)], clock);
    notifier.failWith = new DeliveryError('busy', 'http_429', true, 1_000);
    await delivery.drain(1_000);
    notifier.failWith = undefined;
    clock += 1_000;
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['a']]);
  });

  it('retries a retryable failure with backoff, honouring Retry-After as the least wait', async () => {
    await store.commitEvaluation('r', {}, [alert('a')], clock);
    notifier.failWith = new DeliveryError('busy', 'http_429', true, 5_000);
    await delivery.drain(1_000);
    const [row] = await store.outbox('pending');
    expect(row).toMatchObject({ attempts: 1, lastError: 'busy' });
    expect(await store.nextDue('fake')).toBe(clock + 5_000); // max(backoff 1 s, Retry-After 5 s)
    notifier.failWith = undefined;
    clock += 5_000;
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['a']]);
  });

  it('dead-letters a permanent failure with its reason', async () => {
    await store.commitEvaluation('r', {}, [alert('a')], clock);
    notifier.failWith = new DeliveryError('HTTP 410: archived', 'http_410', false);
    await delivery.drain(1_000);
    expect(await store.outbox('dead')).toEqual([expect.objectContaining({ attempts: 1, lastError: 'HTTP 410: archived' })]);
  });

  it('dead-letters what stays undelivered past maxAge, saying how old it really is, and counts it', async () => {
    delivery = make({ maxAgeMs: 90_000, backoffMaxMs: 60_000 });
    await store.commitEvaluation('r', {}, [alert('a')], clock);
    notifier.failWith = new DeliveryError('HTTP 503', 'http_503', true);
    for (let i = 0; i < 1_000 && (await store.outbox('pending')).length > 0; i++) {
      await delivery.drain(1_000);
      clock = Math.max(clock + 1, (await store.nextDue('fake')) ?? clock);
    }
    // Attempts at 0, 1, 3, 7, 15, 31 and 63 s; the next, due at 123 s, finds it past maxAge.
    expect(await store.outbox('dead')).toEqual([expect.objectContaining({ lastError: 'undelivered after 2m; last error: HTTP 503' })]);
    const failed = await metrics.notificationsFailed.get();
    expect(failed.values.find((v) => v.labels.reason === 'expired')?.value).toBe(1);
  });

  it('a forward step of the wall clock by 26 h does not dead-letter a row seconds old: its age is steady time', async () => {
    let step = 0;
    delivery = make({}, () => clock + step);
    await store.commitEvaluation('r', {}, [alert('a')], clock);
    notifier.failWith = new DeliveryError('busy', 'http_503', true);
    await delivery.drain(1_000);
    step = 26 * 3_600_000;
    clock += 2_000;
    notifier.failWith = undefined;
    await delivery.drain(1_000);
    expect(await store.outbox('dead')).toEqual([]);
    expect(notifier.groups).toEqual([['a']]);
  });

  it('a backward step of the wall clock by 1 h does not hold a retry that is due', async () => {
    let step = 0;
    delivery = make({}, () => clock + step);
    await store.commitEvaluation('r', {}, [alert('a')], clock);
    notifier.failWith = new DeliveryError('busy', 'http_503', true);
    await delivery.drain(1_000);
    step = -3_600_000;
    clock += 2_000;
    notifier.failWith = undefined;
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['a']]);
  });

  it('a wait that will take a row past maxAge does not dead-letter it early: it expires at its real age', async () => {
    await store.commitEvaluation('r', {}, [alert('a')], clock);
    clock += 30_000;
    notifier.failWith = new DeliveryError('busy', 'http_429', true, 50_000);
    await delivery.drain(1_000);
    // 30 s old, next attempt in 50 s: past the 60 s maxAge, but not dead yet.
    expect(await store.outbox('pending')).toEqual([expect.objectContaining({ attempts: 1, lastError: 'busy' })]);
    clock += 50_000;
    await delivery.drain(1_000);
    expect(await store.outbox('dead')).toEqual([expect.objectContaining({ lastError: 'undelivered after 1m; last error: busy' })]);
  });

  it("a provider asking to wait 25 h gets delivery.maxRetryAfter: the attempt fails naming the ask, nothing is dead-lettered, the receiver is back after 10m", async () => {
    delivery = make({ maxAgeMs: 86_400_000 });
    await store.commitEvaluation('r', {}, [alert('a'), alert('b', 'g2')], clock);
    notifier.failWith = new DeliveryError('telegram receiver "fake": HTTP 429: Too Many Requests: retry after 90000', 'http_429', true, 90_000_000);
    await delivery.drain(1_000);
    const error = 'telegram receiver "fake": HTTP 429: Too Many Requests: retry after 90000; fake asked to wait 1d1h, longer than delivery.maxRetryAfter 10m';
    expect(await store.outbox('dead')).toEqual([]);
    // The failed group waits; the other was not tried (the receiver waits as a whole).
    expect((await store.outbox('pending')).map((r) => [r.summary, r.attempts, r.lastError])).toEqual([
      ['b changed', 0, null],
      ['a changed', 1, error],
    ]);
    notifier.failWith = undefined;
    clock += 599_999;
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([]);
    clock += 1;
    await store.commitEvaluation('r', {}, [alert('c', 'g3')], clock);
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['a'], ['b'], ['c']]);
    expect(await store.outbox('sent')).toHaveLength(3);
  });
});
