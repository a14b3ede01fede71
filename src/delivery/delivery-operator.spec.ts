import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alert, FakeNotifier, newMetrics, testDelivery } from '../../test/helpers/delivery.js';
import { DeliveryError, type Notifier } from '../channels/types.js';
import { SqliteStore, type NewAlert, type StateStore } from '../store/index.js';
import type { Delivery, DeliveryDeps, DeliveryOptions } from './delivery.js';

// What the operator sees of delivery: an attempt sent without an answer, the receivers' health,
// rows that wait long, two senders on one file, digests, and the journal. The sending itself:
// delivery.spec.ts.

describe('delivery: what the operator sees', () => {
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

  /** A new delivery over the same store, as a restart makes it. */
  const restarted = async (): Promise<Delivery> => {
    const d = make();
    await d.restore();
    return d;
  };

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

  describe('an attempt sent without an answer (the receiver may have it)', () => {
    const noAnswer = new DeliveryError('webhook receiver "fake": no answer within 10000 ms after the request was sent (it may have been delivered)', 'timeout', true, undefined, true);
    const refused = new DeliveryError('webhook receiver "fake": ECONNREFUSED', 'network', true);

    /** One attempt per error (undefined: accepted), the clock moved past each wait. */
    async function attempt(d: Delivery, ...errors: Array<DeliveryError | undefined>): Promise<void> {
      for (const err of errors) {
        notifier.failWith = err;
        await d.drain(1_000);
        clock += 10_000;
      }
    }

    it('is sent once more, never a third time: the row is dead-lettered as unconfirmed, also across a restart', async () => {
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      await attempt(delivery, noAnswer);
      expect(await store.outbox('pending')).toEqual([expect.objectContaining({ attempts: 1 })]);
      // A restart between the two: what counts is in the state file.
      await attempt(make(), noAnswer);
      expect(notifier.sent).toBe(2);
      expect(await store.outbox('dead')).toEqual([
        expect.objectContaining({
          attempts: 2,
          lastError: `unconfirmed: sent twice without an answer, so it may have been delivered; not sent a third time; last error: ${noAnswer.message}`,
        }),
      ]);
      await attempt(delivery, undefined);
      expect(notifier.sent).toBe(2);
      const failed = await metrics.notificationsFailed.get();
      expect(failed.values.find((v) => v.labels.reason === 'unconfirmed')?.value).toBe(1);
    });

    it('an attempt that never left (connection refused) does not count: retried as usual', async () => {
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      await attempt(delivery, noAnswer, refused, refused, refused);
      expect(await store.outbox('pending')).toEqual([expect.objectContaining({ attempts: 4, lastError: refused.message })]);
      await attempt(delivery, undefined);
      expect(notifier.groups).toEqual([['a']]);
      expect(await store.outbox('sent')).toHaveLength(1);
    });

    it('an idempotent channel (PagerDuty: dedup_key) retries it freely', async () => {
      notifier = new FakeNotifier('fake', true);
      delivery = make();
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      await attempt(delivery, noAnswer, noAnswer, noAnswer, noAnswer, undefined);
      expect(notifier.sent).toBe(5);
      expect(await store.outbox('sent')).toHaveLength(1);
    });
  });

  describe('receiver health (the heartbeat and /readyz read it)', () => {
    it('a receiver revoked for good (404, dead-lettered) is failing until a later notification to it is delivered', async () => {
      notifier.failWith = new DeliveryError('slack receiver "fake": HTTP 404 (no_service)', 'http_404', false);
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      await delivery.drain(1_000);
      expect(await store.outbox('dead')).toHaveLength(1);
      expect(delivery.problems()).toEqual(['receiver fake: 1 notification dead-lettered, the last 0s ago (slack receiver "fake": HTTP 404 (no_service)); failing until one to it is delivered, or for 1d']);
      clock += 3_600_000;
      expect(delivery.problems()).toHaveLength(1);
      // A restart reads it back from the outbox.
      expect((await restarted()).problems()).toEqual([expect.stringContaining('receiver fake: 1 notification dead-lettered, the last 1h ago')]);
      notifier.failWith = undefined;
      await store.commitEvaluation('r', {}, [alert('b')], clock);
      await delivery.drain(1_000);
      expect(delivery.problems()).toEqual([]);
      expect((await restarted()).problems()).toEqual([]);
    });

    it('a dead letter stops failing the receiver after deadLetterHold', async () => {
      delivery = make({ deadLetterHoldMs: 600_000 });
      notifier.failWith = new DeliveryError('HTTP 410: archived', 'http_410', false);
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      await delivery.drain(1_000);
      expect(delivery.problems()).toHaveLength(1);
      clock += 600_000;
      expect(delivery.problems()).toEqual([]);
    });

    it('every attempt failing (503) names the receiver once failingAfter has passed, and a delivery clears it', async () => {
      delivery = make({ failingAfterMs: 600_000, maxAgeMs: 6 * 3_600_000 });
      notifier.failWith = new DeliveryError('webhook receiver "fake": HTTP 503', 'http_503', true);
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      for (let i = 0; i < 12; i++) {
        await delivery.drain(1_000);
        if (i === 5) expect(delivery.problems()).toEqual([]);
        clock += 60_000;
      }
      expect(delivery.problems()).toEqual(['receiver fake: every attempt failed for 12m (webhook receiver "fake": HTTP 503)']);
      notifier.failWith = undefined;
      await delivery.drain(1_000);
      expect(await store.outbox('sent')).toHaveLength(1);
      expect(delivery.problems()).toEqual([]);
    });
  });

  describe('what an operator sees when time runs long, or two senders share a file', () => {
    const failedSeries = async () => (await metrics.notificationsFailed.get()).values.map((v) => `${v.labels.receiver} ${v.labels.reason} ${v.value}`).sort();

    it('a row past maxAge is dead-lettered, never sent late: no message arrives, the dead letter says how old it was, and `expired` counts it', async () => {
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      clock += 3 * 3_600_000;
      await delivery.drain(1_000);
      expect(notifier.sent).toBe(0);
      expect(await store.outbox('dead')).toEqual([expect.objectContaining({ summary: 'a changed', lastError: 'undelivered after 3h; no attempt was made' })]);
      expect(await failedSeries()).toContain('fake expired 1');
    });

    it('a row exactly maxAge old still goes out', async () => {
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      clock += 60_000;
      await delivery.drain(1_000);
      expect(notifier.groups).toEqual([['a']]);
      expect(await store.outbox('dead')).toEqual([]);
    });

    it('a group whose rows all expired sends nothing (no empty message); the other group goes alone', async () => {
      await store.commitEvaluation('r', {}, [alert('a', 'g1'), alert('b', 'g1')], clock);
      clock += 30_000;
      await store.commitEvaluation('r', {}, [alert('c', 'g2')], clock);
      clock += 30_001;
      await delivery.drain(1_000);
      expect(notifier.sent).toBe(1);
      expect(notifier.groups).toEqual([['c']]);
      expect((await store.outbox('dead')).map((r) => r.summary).sort()).toEqual(['a changed', 'b changed']);
      expect((await metrics.notifications.get()).values.map((v) => v.value)).toEqual([1]);
    });

    it('a batch of groups sent one by one stays leased to its end: `once --send` beside the daemon sends none of them again', async () => {
      const subjects = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
      await store.commitEvaluation('r', {}, subjects.map((s) => alert(s, s)), clock);
      clock += 800;
      const onceStore = SqliteStore.open(join(dir, 's.db'));
      const onceNotifier = new FakeNotifier('fake');
      const once = make({}, () => clock, onceStore, [onceNotifier]);
      // Each attempt takes the channel's whole timeout (1 s): the 7th starts 6 s after the claim,
      // past one attempt's lease (timeout + 5 s); `once --send` runs then.
      let attempts = 0;
      notifier.during = async () => {
        clock += 1_000;
        if (++attempts === 7) await once.drain(1_000);
      };
      await delivery.drain(60_000);
      await onceStore.close();
      expect(onceNotifier.groups).toEqual([]);
      expect(notifier.groups.flat()).toEqual(subjects);
      expect(await store.outbox('sent')).toHaveLength(8);
    });

    it("one receiver's groupInterval never holds another receiver's messages of the same group", async () => {
      const other = new FakeNotifier('other');
      delivery = make({}, () => clock, store, [notifier, other]);
      const both = (subject: string): NewAlert => ({
        ...alert(subject),
        targets: [
          { receiver: 'fake', groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 600_000 },
          { receiver: 'other', groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 60_000 },
        ],
      });
      await store.commitEvaluation('r', {}, [both('x')], clock);
      clock += 1_000;
      await delivery.drain(1_000);
      clock += 10_000;
      await store.commitEvaluation('r', {}, [both('y')], clock);
      // other's groupInterval, from its delivery 1 s in, is over at 61 s; fake's lasts 10 min.
      clock += 49_999;
      await delivery.drain(1_000);
      expect(other.groups).toEqual([['x']]);
      clock += 1;
      await delivery.drain(1_000);
      expect(other.groups).toEqual([['x'], ['y']]);
      expect(notifier.groups).toEqual([['x']]);
    });

    it('every failure series is on /metrics at 0 from the start, so an increase() alert sees the first failure', async () => {
      metrics = newMetrics();
      make({}, () => clock, store, [notifier, new FakeNotifier('pd', true)]);
      expect(await failedSeries()).toEqual([
        'fake expired 0',
        'fake network 0',
        'fake timeout 0',
        'fake unconfirmed 0',
        // An idempotent channel never gives up a row as unconfirmed.
        'pd expired 0',
        'pd network 0',
        'pd timeout 0',
      ]);
      expect((await metrics.notifications.get()).values.map((v) => `${v.labels.receiver} ${v.value}`).sort()).toEqual(['fake 0', 'pd 0']);
    });

    it('`once --send` keeps to its deadline: groups left when it passes stay pending for the daemon', async () => {
      await store.commitEvaluation('r', {}, ['a', 'b', 'c', 'd', 'e'].map((s) => alert(s, s)), clock);
      clock += 800;
      // Each attempt takes 0.5 s: a, b and c start within the 1 s deadline (c at exactly 1 s).
      notifier.during = () => {
        clock += 500;
      };
      expect(await delivery.drain(1_000)).toBe(2);
      expect(notifier.groups).toEqual([['a'], ['b'], ['c']]);
      expect((await store.outbox('pending')).map((r) => r.summary).sort()).toEqual(['d changed', 'e changed']);
    });

    it('a single attempt that takes its whole timeout is still leased: `once --send` meanwhile sends nothing', async () => {
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      const onceStore = SqliteStore.open(join(dir, 's.db'));
      const onceNotifier = new FakeNotifier('fake');
      const once = make({}, () => clock, onceStore, [onceNotifier]);
      notifier.during = async () => {
        clock += 1_000;
        await once.drain(1_000);
      };
      await delivery.drain(1_000);
      await onceStore.close();
      expect(onceNotifier.groups).toEqual([]);
      expect(notifier.groups).toEqual([['a']]);
    });

    /** An attempt at a row 59 s old (maxAge 60 s) that fails after `ms`. */
    const failingAt59s = async (ms: number) => {
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      clock += 59_000;
      notifier.failWith = new DeliveryError('HTTP 503', 'http_503', true);
      notifier.during = () => {
        clock += ms;
      };
      await delivery.drain(1_000);
    };

    it('an attempt that fails after the row passed maxAge dead-letters it at once, saying how old it is', async () => {
      await failingAt59s(1_001);
      expect(await store.outbox('pending')).toEqual([]);
      expect(await store.outbox('dead')).toEqual([expect.objectContaining({ lastError: 'undelivered after 1m; last error: HTTP 503' })]);
    });

    it('an attempt that fails when the row is exactly maxAge old is retried', async () => {
      await failingAt59s(1_000);
      expect(await store.outbox('pending')).toEqual([expect.objectContaining({ attempts: 1, lastError: 'HTTP 503' })]);
    });

    it('the counters carry the receiver: one delivered, one failed attempt by its reason', async () => {
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      notifier.failWith = new DeliveryError('HTTP 503', 'http_503', true);
      await delivery.drain(1_000);
      notifier.failWith = undefined;
      clock += 10_000;
      await delivery.drain(1_000);
      expect(await failedSeries()).toContain('fake http_503 1');
      expect((await metrics.notifications.get()).values.map((v) => `${v.labels.receiver} ${v.value}`)).toEqual(['fake 1']);
    });

    it("a channel's unexpected error is a retryable failure naming the receiver", async () => {
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      notifier.during = () => {
        throw new TypeError('fetch failed');
      };
      await delivery.drain(1_000);
      expect(await store.outbox('pending')).toEqual([expect.objectContaining({ attempts: 1, lastError: 'fake: TypeError: fetch failed' })]);
      expect(await failedSeries()).toContain('fake error 1');
    });

    it('a group retried waits by its most-tried row: a newcomer does not reset the backoff', async () => {
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      notifier.failWith = new DeliveryError('HTTP 503', 'http_503', true);
      for (let i = 0; i < 3; i++) {
        await delivery.drain(1_000);
        clock = (await store.nextDue('fake'))!;
      }
      await store.commitEvaluation('r', {}, [alert('b')], clock);
      await delivery.drain(1_000);
      // a had 3 attempts: 1 s × 2^3.
      expect(await store.nextDue('fake')).toBe(clock + 8_000);
    });

    it('a digest goes out as one message at its slot, aged from the slot, not from its rows', async () => {
      const slot = clock + 2 * 3_600_000;
      const digestOf = () => ({ severities: ['info' as const], every: 86_400_000, at: '09:00', location: 'UTC' });
      delivery = make({}, () => clock, store, [notifier], { digestOf });
      const waiting = (subject: string): NewAlert => ({ ...alert(subject), severity: 'info', targets: [{ receiver: 'fake', groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0, digestAt: slot }] });
      await store.commitEvaluation('r', {}, [waiting('a'), waiting('b')], clock);
      clock = slot;
      await delivery.drain(1_000);
      expect(notifier.groups).toEqual([['2 notification(s)']]);
      expect(await store.outbox('sent')).toHaveLength(2);
    });

    it('a firing alert held back (its incident fires to this receiver) is muted with the reason; a resolution is never held', async () => {
      delivery = make({}, () => clock, store, [notifier], { held: () => 'held: incident #3 fires to this receiver' });
      await store.commitEvaluation('r', {}, [alert('down', 'g', 0, 0, 'warning', 'firing'), alert('up', 'g2', 0, 0, 'warning', 'resolved')], clock);
      await delivery.drain(1_000);
      expect(notifier.groups).toEqual([['up']]);
      expect((await store.outbox('muted')).map((r) => [r.summary, r.lastError])).toEqual([['down changed', 'held: incident #3 fires to this receiver']]);
    });
  });

  describe('the journal says what happened to each notification', () => {
    const said = (msg: string) => logs.filter((l) => l['msg'] === msg);

    it('delivered: one, or a group, with the receiver, the count, the outbox ids and the rules', async () => {
      await store.commitEvaluation('r', {}, [alert('a'), alert('b', 'g2'), alert('c', 'g2')], clock);
      await delivery.drain(1_000);
      expect(said('notification delivered')).toEqual([expect.objectContaining({ level: 30, receiver: 'fake', alerts: 1, outboxIds: [1], rules: ['r'] })]);
      expect(said('notification group delivered')).toEqual([expect.objectContaining({ receiver: 'fake', alerts: 2, outboxIds: [2, 3], rules: ['r'] })]);
    });

    it('a storm lists the first 20 outbox ids', async () => {
      await store.commitEvaluation('r', {}, Array.from({ length: 25 }, (_, i) => alert(`n${i}`)), clock);
      await delivery.drain(1_000);
      expect(said('notification group delivered')[0]).toMatchObject({ alerts: 25, outboxIds: Array.from({ length: 20 }, (_, i) => i + 1) });
    });

    it('failed, to be retried: the reason, the error and the wait', async () => {
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      notifier.failWith = new DeliveryError('HTTP 503', 'http_503', true);
      await delivery.drain(1_000);
      expect(said('notification failed; will retry')).toEqual([expect.objectContaining({ level: 40, receiver: 'fake', reason: 'http_503', error: 'HTTP 503', retryInMs: 1_000, outboxIds: [1] })]);
    });

    it('failed for good: dead-lettered with the reason', async () => {
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      notifier.failWith = new DeliveryError('HTTP 410: archived', 'http_410', false);
      await delivery.drain(1_000);
      expect(said('notification failed permanently; dead-lettered')).toEqual([expect.objectContaining({ level: 50, receiver: 'fake', reason: 'http_410', error: 'HTTP 410: archived', outboxIds: [1] })]);
    });

    it('expired, and sent twice without an answer: each names the row and its rule', async () => {
      await store.commitEvaluation('r', {}, [alert('a')], clock);
      clock += 61_000;
      await delivery.drain(1_000);
      expect(said('notification expired; dead-lettered')).toEqual([expect.objectContaining({ level: 50, receiver: 'fake', outboxId: 1, rule: 'r', reason: 'expired' })]);
      await store.commitEvaluation('r', {}, [alert('b')], clock);
      notifier.failWith = new DeliveryError('no answer', 'timeout', true, undefined, true);
      await delivery.drain(1_000);
      clock += 10_000;
      await delivery.drain(1_000);
      expect(said('notification sent twice without an answer; not sent again')).toEqual([
        expect.objectContaining({ level: 50, receiver: 'fake', outboxId: 2, rule: 'r', reason: 'unconfirmed', error: 'no answer' }),
      ]);
    });
  });
});
