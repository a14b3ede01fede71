import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clockOf } from '../base/clock.js';
import { createLogger } from '../base/log.js';
import { createMetrics } from '../metrics/registry.js';
import { Store, type NewAlert } from '../store/index.js';
import { Delivery, type DeliveryDeps, type DeliveryOptions } from './delivery.js';
import { DeliveryError, type AlertMessage, type Notifier } from '../channels/types.js';

/** A notifier of our own interface that records groups and fails as told. */
class FakeNotifier implements Notifier {
  readonly type = 'fake';
  readonly minIntervalMs = 0;
  readonly timeoutMs = 1_000;
  readonly groups: string[][] = [];
  /** Copies sent, answered or not. */
  sent = 0;
  failWith: DeliveryError | undefined;
  /** Runs inside each attempt, before its outcome (a slow attempt moves the test's clock). */
  during: (() => Promise<void> | void) | undefined;
  constructor(
    readonly name: string,
    readonly idempotent = false,
  ) {}
  async send(alerts: readonly AlertMessage[]): Promise<void> {
    this.sent++;
    await this.during?.();
    if (this.failWith) throw this.failWith;
    this.groups.push(alerts.map((a) => a.subject));
  }
}

const alert = (subject: string, groupKey = 'g', groupWaitMs = 0, groupIntervalMs = 0, severity: NewAlert['severity'] = 'warning', status: NewAlert['status'] = 'event'): NewAlert => ({
  rule: 'r',
  kind: 'k',
  status,
  severity,
  subject,
  summary: `${subject} changed`,
  labels: {},
  details: {},
  targets: [{ receiver: 'fake', groupKey, groupWaitMs, groupIntervalMs }],
});

describe('delivery', () => {
  let dir: string;
  let store: Store;
  let clock: number;
  let notifier: FakeNotifier;
  let delivery: Delivery;
  let metrics: ReturnType<typeof createMetrics>;
  /** What the journal says (JSON lines, parsed). */
  let logs: Array<Record<string, unknown>>;
  const newMetrics = () => createMetrics({ version: 't', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] });
  /** A Delivery over this test's store, notifier and clock. */
  const make = (
    options: Partial<DeliveryOptions> = {},
    wall: () => number = () => clock,
    over: Store = store,
    notifiers: Notifier[] = [notifier],
    extra: Pick<DeliveryDeps, 'held' | 'digestOf'> = {},
  ): Delivery =>
    new Delivery({
      store: over,
      notifiers,
      metrics,
      log: createLogger('info', false, (line) => logs.push(JSON.parse(line) as Record<string, unknown>)).log,
      options: { backoffMs: 1_000, backoffMaxMs: 10_000, maxRetryAfterMs: 600_000, failingAfterMs: 600_000, deadLetterHoldMs: 86_400_000, maxAgeMs: 60_000, ...options },
      clock: clockOf({ now: wall, mono: () => clock }),
      random: () => 1,
      ...extra,
    });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'avawatch-delivery-'));
    store = Store.open(join(dir, 's.db'));
    clock = 1_000_000;
    notifier = new FakeNotifier('fake');
    metrics = newMetrics();
    logs = [];
    delivery = make();
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends one message per group, in order', async () => {
    store.commitEvaluation('r', {}, [alert('a', 'g1'), alert('b', 'g2'), alert('c', 'g1')], clock);
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['a', 'c'], ['b']]);
    expect(store.outbox('sent')).toHaveLength(3);
  });

  it('counts groupWait of later news from the group’s first pending alert, so a late member joins the same message', async () => {
    // The group's first news went out; what follows within groupInterval is later news.
    store.commitEvaluation('r', {}, [alert('x', 'g', 30_000, 10_000)], clock);
    clock += 1_000;
    await delivery.drain(1_000);
    store.commitEvaluation('r', {}, [alert('a', 'g', 30_000, 10_000)], clock);
    clock += 3_000;
    store.commitEvaluation('r', {}, [alert('b', 'g', 30_000, 10_000)], clock);
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
      store.commitEvaluation('r', {}, [news('a'), news('b')], clock);
      expect(store.nextDue('fake')).toBe(clock + 800);
      expect(await sentBy(799)).toEqual([]);
      // Both alerts of the same evaluation go together.
      expect(await sentBy(1)).toEqual(['a+b']);
    });

    it('the wait counts from when the poll began, not the commit: a slow evaluation does not add to it', async () => {
      store.commitEvaluation('r', {}, [news('down', 'critical')], clock, undefined, undefined, clock - 400);
      expect(store.nextDue('fake')).toBe(clock + 400);
      expect(await sentBy(400)).toEqual(['down']);
      // An evaluation longer than the wait: 0.1 s, for what the other rules of the poll say.
      store.commitEvaluation('r', {}, [news('down again', 'critical')], clock, undefined, undefined, clock - 3_000);
      expect(await sentBy(99)).toEqual(['down']);
      expect(await sentBy(1)).toEqual(['down', 'down again']);
    });

    it('a critical after a message of its group leaves after 0.8 s: groupInterval never holds it; a warning still waits and joins the next message', async () => {
      store.commitEvaluation('r', {}, [news('a')], clock);
      expect(await sentBy(1_000)).toEqual(['a']);
      clock += 10_000;
      store.commitEvaluation('r', {}, [news('down', 'critical')], clock);
      // The worker wakes for it though its group is throttled.
      expect(store.nextDue('fake', ['alpha'])).toBe(clock + 800);
      expect(await sentBy(1_000)).toEqual(['a', 'down']);
      store.commitEvaluation('r', {}, [news('slow')], clock);
      expect(await sentBy(WAIT)).toEqual(['a', 'down']);
      expect(await sentBy(INTERVAL - WAIT - 1)).toEqual(['a', 'down']);
      expect(await sentBy(1)).toEqual(['a', 'down', 'slow']);
    });

    it('the resolution of a critical leaves at once too', async () => {
      store.commitEvaluation('r', {}, [news('down', 'critical', 'firing')], clock);
      expect(await sentBy(1_000)).toEqual(['down']);
      clock += 30_000;
      store.commitEvaluation('r', {}, [news('up', 'critical', 'resolved')], clock);
      expect(await sentBy(1_000)).toEqual(['down', 'up']);
    });

    it('a critical flushes the warnings waiting in its group: one message', async () => {
      store.commitEvaluation('r', {}, [news('a')], clock);
      expect(await sentBy(1_000)).toEqual(['a']);
      store.commitEvaluation('r', {}, [news('w1')], clock);
      expect(await sentBy(20_000)).toEqual(['a']);
      store.commitEvaluation('r', {}, [news('down', 'critical')], clock);
      expect(await sentBy(1_000)).toEqual(['a', 'w1+down']);
    });

    it('news after a quiet groupInterval is first news again', async () => {
      store.commitEvaluation('r', {}, [news('a')], clock);
      expect(await sentBy(1_000)).toEqual(['a']);
      clock += INTERVAL;
      store.commitEvaluation('r', {}, [news('b')], clock);
      expect(await sentBy(1_000)).toEqual(['a', 'b']);
    });

    it('a restart keeps it: urgency is read from the state file', async () => {
      store.commitEvaluation('r', {}, [news('a')], clock);
      expect(await sentBy(1_000)).toEqual(['a']);
      store.commitEvaluation('r', {}, [news('down', 'critical')], clock);
      store.close();
      store = Store.open(join(dir, 's.db'));
      delivery = make({ maxAgeMs: 3_600_000 });
      expect(await sentBy(1_000)).toEqual(['a', 'down']);
    });

    it('a failing receiver’s Retry-After still holds a critical', async () => {
      store.commitEvaluation('r', {}, [news('down', 'critical')], clock);
      notifier.failWith = new DeliveryError('busy', 'http_429', true, 30_000);
      expect(await sentBy(1_000)).toEqual([]);
      notifier.failWith = undefined;
      expect(await sentBy(29_999)).toEqual([]);
      expect(await sentBy(1)).toEqual(['down']);
    });
  });

  it('a group inside its groupInterval waits without holding up other groups', async () => {
    store.commitEvaluation('r', {}, [alert('a', 'g1', 0, 60_000)], clock);
    await delivery.drain(1_000);
    clock += 1_000;
    store.commitEvaluation('r', {}, [alert('c', 'g1', 0, 60_000), alert('d', 'g2', 0, 60_000)], clock);
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['a'], ['d']]);
    clock += 60_000;
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['a'], ['d'], ['c']]);
  });

  it('groupInterval counts from a delivery, not a failed attempt', async () => {
    store.commitEvaluation('r', {}, [alert('a', 'g1', 0, 60_000)], clock);
    notifier.failWith = new DeliveryError('busy', 'http_429', true, 1_000);
    await delivery.drain(1_000);
    notifier.failWith = undefined;
    clock += 1_000;
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['a']]);
  });

  it('retries a retryable failure with backoff, honouring Retry-After as the least wait', async () => {
    store.commitEvaluation('r', {}, [alert('a')], clock);
    notifier.failWith = new DeliveryError('busy', 'http_429', true, 5_000);
    await delivery.drain(1_000);
    const [row] = store.outbox('pending');
    expect(row).toMatchObject({ attempts: 1, lastError: 'busy' });
    expect(store.nextDue('fake')).toBe(clock + 5_000); // max(backoff 1 s, Retry-After 5 s)
    notifier.failWith = undefined;
    clock += 5_000;
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['a']]);
  });

  it('dead-letters a permanent failure with its reason', async () => {
    store.commitEvaluation('r', {}, [alert('a')], clock);
    notifier.failWith = new DeliveryError('HTTP 410: archived', 'http_410', false);
    await delivery.drain(1_000);
    expect(store.outbox('dead')).toEqual([expect.objectContaining({ attempts: 1, lastError: 'HTTP 410: archived' })]);
  });

  it('dead-letters what stays undelivered past maxAge, saying how old it really is, and counts it', async () => {
    delivery = make({ maxAgeMs: 90_000, backoffMaxMs: 60_000 });
    store.commitEvaluation('r', {}, [alert('a')], clock);
    notifier.failWith = new DeliveryError('HTTP 503', 'http_503', true);
    for (let i = 0; i < 1_000 && store.outbox('pending').length > 0; i++) {
      await delivery.drain(1_000);
      clock = Math.max(clock + 1, store.nextDue('fake') ?? clock);
    }
    // Attempts at 0, 1, 3, 7, 15, 31 and 63 s; the next, due at 123 s, finds it past maxAge.
    expect(store.outbox('dead')).toEqual([expect.objectContaining({ lastError: 'undelivered after 2m; last error: HTTP 503' })]);
    const failed = await metrics.notificationsFailed.get();
    expect(failed.values.find((v) => v.labels.reason === 'expired')?.value).toBe(1);
  });

  it('a forward step of the wall clock by 26 h does not dead-letter a row seconds old: its age is steady time', async () => {
    let step = 0;
    delivery = make({}, () => clock + step);
    store.commitEvaluation('r', {}, [alert('a')], clock);
    notifier.failWith = new DeliveryError('busy', 'http_503', true);
    await delivery.drain(1_000);
    step = 26 * 3_600_000;
    clock += 2_000;
    notifier.failWith = undefined;
    await delivery.drain(1_000);
    expect(store.outbox('dead')).toEqual([]);
    expect(notifier.groups).toEqual([['a']]);
  });

  it('a backward step of the wall clock by 1 h does not hold a retry that is due', async () => {
    let step = 0;
    delivery = make({}, () => clock + step);
    store.commitEvaluation('r', {}, [alert('a')], clock);
    notifier.failWith = new DeliveryError('busy', 'http_503', true);
    await delivery.drain(1_000);
    step = -3_600_000;
    clock += 2_000;
    notifier.failWith = undefined;
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['a']]);
  });

  it('a wait that will take a row past maxAge does not dead-letter it early: it expires at its real age', async () => {
    store.commitEvaluation('r', {}, [alert('a')], clock);
    clock += 30_000;
    notifier.failWith = new DeliveryError('busy', 'http_429', true, 50_000);
    await delivery.drain(1_000);
    // 30 s old, next attempt in 50 s: past the 60 s maxAge, but not dead yet.
    expect(store.outbox('pending')).toEqual([expect.objectContaining({ attempts: 1, lastError: 'busy' })]);
    clock += 50_000;
    await delivery.drain(1_000);
    expect(store.outbox('dead')).toEqual([expect.objectContaining({ lastError: 'undelivered after 1m; last error: busy' })]);
  });

  it("a provider asking to wait 25 h gets delivery.maxRetryAfter: the attempt fails naming the ask, nothing is dead-lettered, the receiver is back after 10m", async () => {
    delivery = make({ maxAgeMs: 86_400_000 });
    store.commitEvaluation('r', {}, [alert('a'), alert('b', 'g2')], clock);
    notifier.failWith = new DeliveryError('telegram receiver "fake": HTTP 429: Too Many Requests: retry after 90000', 'http_429', true, 90_000_000);
    await delivery.drain(1_000);
    const error = 'telegram receiver "fake": HTTP 429: Too Many Requests: retry after 90000; fake asked to wait 1d1h, longer than delivery.maxRetryAfter 10m';
    expect(store.outbox('dead')).toEqual([]);
    // The failed group waits; the other was not tried (the receiver waits as a whole).
    expect(store.outbox('pending').map((r) => [r.summary, r.attempts, r.lastError])).toEqual([
      ['b changed', 0, null],
      ['a changed', 1, error],
    ]);
    notifier.failWith = undefined;
    clock += 599_999;
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([]);
    clock += 1;
    store.commitEvaluation('r', {}, [alert('c', 'g3')], clock);
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['a'], ['b'], ['c']]);
    expect(store.outbox('sent')).toHaveLength(3);
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
      store.commitEvaluation('r', {}, [alert('a')], clock);
      await attempt(delivery, noAnswer);
      expect(store.outbox('pending')).toEqual([expect.objectContaining({ attempts: 1 })]);
      // A restart between the two: what counts is in the state file.
      await attempt(make(), noAnswer);
      expect(notifier.sent).toBe(2);
      expect(store.outbox('dead')).toEqual([
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
      store.commitEvaluation('r', {}, [alert('a')], clock);
      await attempt(delivery, noAnswer, refused, refused, refused);
      expect(store.outbox('pending')).toEqual([expect.objectContaining({ attempts: 4, lastError: refused.message })]);
      await attempt(delivery, undefined);
      expect(notifier.groups).toEqual([['a']]);
      expect(store.outbox('sent')).toHaveLength(1);
    });

    it('an idempotent channel (PagerDuty: dedup_key) retries it freely', async () => {
      notifier = new FakeNotifier('fake', true);
      delivery = make();
      store.commitEvaluation('r', {}, [alert('a')], clock);
      await attempt(delivery, noAnswer, noAnswer, noAnswer, noAnswer, undefined);
      expect(notifier.sent).toBe(5);
      expect(store.outbox('sent')).toHaveLength(1);
    });
  });

  describe('receiver health (the heartbeat and /readyz read it)', () => {
    it('a receiver revoked for good (404, dead-lettered) is failing until a later notification to it is delivered', async () => {
      notifier.failWith = new DeliveryError('slack receiver "fake": HTTP 404 (no_service)', 'http_404', false);
      store.commitEvaluation('r', {}, [alert('a')], clock);
      await delivery.drain(1_000);
      expect(store.outbox('dead')).toHaveLength(1);
      expect(delivery.problems()).toEqual(['receiver fake: 1 notification dead-lettered, the last 0s ago (slack receiver "fake": HTTP 404 (no_service)); failing until one to it is delivered, or for 1d']);
      clock += 3_600_000;
      expect(delivery.problems()).toHaveLength(1);
      // A restart reads it back from the outbox.
      expect(make().problems()).toEqual([expect.stringContaining('receiver fake: 1 notification dead-lettered, the last 1h ago')]);
      notifier.failWith = undefined;
      store.commitEvaluation('r', {}, [alert('b')], clock);
      await delivery.drain(1_000);
      expect(delivery.problems()).toEqual([]);
      expect(make().problems()).toEqual([]);
    });

    it('a dead letter stops failing the receiver after deadLetterHold', async () => {
      delivery = make({ deadLetterHoldMs: 600_000 });
      notifier.failWith = new DeliveryError('HTTP 410: archived', 'http_410', false);
      store.commitEvaluation('r', {}, [alert('a')], clock);
      await delivery.drain(1_000);
      expect(delivery.problems()).toHaveLength(1);
      clock += 600_000;
      expect(delivery.problems()).toEqual([]);
    });

    it('every attempt failing (503) names the receiver once failingAfter has passed, and a delivery clears it', async () => {
      delivery = make({ failingAfterMs: 600_000, maxAgeMs: 6 * 3_600_000 });
      notifier.failWith = new DeliveryError('webhook receiver "fake": HTTP 503', 'http_503', true);
      store.commitEvaluation('r', {}, [alert('a')], clock);
      for (let i = 0; i < 12; i++) {
        await delivery.drain(1_000);
        if (i === 5) expect(delivery.problems()).toEqual([]);
        clock += 60_000;
      }
      expect(delivery.problems()).toEqual(['receiver fake: every attempt failed for 12m (webhook receiver "fake": HTTP 503)']);
      notifier.failWith = undefined;
      await delivery.drain(1_000);
      expect(store.outbox('sent')).toHaveLength(1);
      expect(delivery.problems()).toEqual([]);
    });
  });

  describe('what an operator sees when time runs long, or two senders share a file', () => {
    const failedSeries = async () => (await metrics.notificationsFailed.get()).values.map((v) => `${v.labels.receiver} ${v.labels.reason} ${v.value}`).sort();

    it('a row past maxAge is dead-lettered, never sent late: no message arrives, the dead letter says how old it was, and `expired` counts it', async () => {
      store.commitEvaluation('r', {}, [alert('a')], clock);
      clock += 3 * 3_600_000;
      await delivery.drain(1_000);
      expect(notifier.sent).toBe(0);
      expect(store.outbox('dead')).toEqual([expect.objectContaining({ summary: 'a changed', lastError: 'undelivered after 3h; no attempt was made' })]);
      expect(await failedSeries()).toContain('fake expired 1');
    });

    it('a row exactly maxAge old still goes out', async () => {
      store.commitEvaluation('r', {}, [alert('a')], clock);
      clock += 60_000;
      await delivery.drain(1_000);
      expect(notifier.groups).toEqual([['a']]);
      expect(store.outbox('dead')).toEqual([]);
    });

    it('a group whose rows all expired sends nothing (no empty message); the other group goes alone', async () => {
      store.commitEvaluation('r', {}, [alert('a', 'g1'), alert('b', 'g1')], clock);
      clock += 30_000;
      store.commitEvaluation('r', {}, [alert('c', 'g2')], clock);
      clock += 30_001;
      await delivery.drain(1_000);
      expect(notifier.sent).toBe(1);
      expect(notifier.groups).toEqual([['c']]);
      expect(store.outbox('dead').map((r) => r.summary).sort()).toEqual(['a changed', 'b changed']);
      expect((await metrics.notifications.get()).values.map((v) => v.value)).toEqual([1]);
    });

    it('a batch of groups sent one by one stays leased to its end: `once --send` beside the daemon sends none of them again', async () => {
      const subjects = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
      store.commitEvaluation('r', {}, subjects.map((s) => alert(s, s)), clock);
      clock += 800;
      const onceStore = Store.open(join(dir, 's.db'));
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
      onceStore.close();
      expect(onceNotifier.groups).toEqual([]);
      expect(notifier.groups.flat()).toEqual(subjects);
      expect(store.outbox('sent')).toHaveLength(8);
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
      store.commitEvaluation('r', {}, [both('x')], clock);
      clock += 1_000;
      await delivery.drain(1_000);
      clock += 10_000;
      store.commitEvaluation('r', {}, [both('y')], clock);
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
      store.commitEvaluation('r', {}, ['a', 'b', 'c', 'd', 'e'].map((s) => alert(s, s)), clock);
      clock += 800;
      // Each attempt takes 0.5 s: a, b and c start within the 1 s deadline (c at exactly 1 s).
      notifier.during = () => {
        clock += 500;
      };
      expect(await delivery.drain(1_000)).toBe(2);
      expect(notifier.groups).toEqual([['a'], ['b'], ['c']]);
      expect(store.outbox('pending').map((r) => r.summary).sort()).toEqual(['d changed', 'e changed']);
    });

    it('a single attempt that takes its whole timeout is still leased: `once --send` meanwhile sends nothing', async () => {
      store.commitEvaluation('r', {}, [alert('a')], clock);
      const onceStore = Store.open(join(dir, 's.db'));
      const onceNotifier = new FakeNotifier('fake');
      const once = make({}, () => clock, onceStore, [onceNotifier]);
      notifier.during = async () => {
        clock += 1_000;
        await once.drain(1_000);
      };
      await delivery.drain(1_000);
      onceStore.close();
      expect(onceNotifier.groups).toEqual([]);
      expect(notifier.groups).toEqual([['a']]);
    });

    /** An attempt at a row 59 s old (maxAge 60 s) that fails after `ms`. */
    const failingAt59s = async (ms: number) => {
      store.commitEvaluation('r', {}, [alert('a')], clock);
      clock += 59_000;
      notifier.failWith = new DeliveryError('HTTP 503', 'http_503', true);
      notifier.during = () => {
        clock += ms;
      };
      await delivery.drain(1_000);
    };

    it('an attempt that fails after the row passed maxAge dead-letters it at once, saying how old it is', async () => {
      await failingAt59s(1_001);
      expect(store.outbox('pending')).toEqual([]);
      expect(store.outbox('dead')).toEqual([expect.objectContaining({ lastError: 'undelivered after 1m; last error: HTTP 503' })]);
    });

    it('an attempt that fails when the row is exactly maxAge old is retried', async () => {
      await failingAt59s(1_000);
      expect(store.outbox('pending')).toEqual([expect.objectContaining({ attempts: 1, lastError: 'HTTP 503' })]);
    });

    it('the counters carry the receiver: one delivered, one failed attempt by its reason', async () => {
      store.commitEvaluation('r', {}, [alert('a')], clock);
      notifier.failWith = new DeliveryError('HTTP 503', 'http_503', true);
      await delivery.drain(1_000);
      notifier.failWith = undefined;
      clock += 10_000;
      await delivery.drain(1_000);
      expect(await failedSeries()).toContain('fake http_503 1');
      expect((await metrics.notifications.get()).values.map((v) => `${v.labels.receiver} ${v.value}`)).toEqual(['fake 1']);
    });

    it("a channel's unexpected error is a retryable failure naming the receiver", async () => {
      store.commitEvaluation('r', {}, [alert('a')], clock);
      notifier.during = () => {
        throw new TypeError('fetch failed');
      };
      await delivery.drain(1_000);
      expect(store.outbox('pending')).toEqual([expect.objectContaining({ attempts: 1, lastError: 'fake: TypeError: fetch failed' })]);
      expect(await failedSeries()).toContain('fake error 1');
    });

    it('a group retried waits by its most-tried row: a newcomer does not reset the backoff', async () => {
      store.commitEvaluation('r', {}, [alert('a')], clock);
      notifier.failWith = new DeliveryError('HTTP 503', 'http_503', true);
      for (let i = 0; i < 3; i++) {
        await delivery.drain(1_000);
        clock = store.nextDue('fake')!;
      }
      store.commitEvaluation('r', {}, [alert('b')], clock);
      await delivery.drain(1_000);
      // a had 3 attempts: 1 s × 2^3.
      expect(store.nextDue('fake')).toBe(clock + 8_000);
    });

    it('a digest goes out as one message at its slot, aged from the slot, not from its rows', async () => {
      const slot = clock + 2 * 3_600_000;
      const digestOf = () => ({ severities: ['info' as const], every: 86_400_000, at: '09:00', location: 'UTC' });
      delivery = make({}, () => clock, store, [notifier], { digestOf });
      const waiting = (subject: string): NewAlert => ({ ...alert(subject), severity: 'info', targets: [{ receiver: 'fake', groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0, digestAt: slot }] });
      store.commitEvaluation('r', {}, [waiting('a'), waiting('b')], clock);
      clock = slot;
      await delivery.drain(1_000);
      expect(notifier.groups).toEqual([['2 notification(s)']]);
      expect(store.outbox('sent')).toHaveLength(2);
    });

    it('a firing alert held back (its incident fires to this receiver) is muted with the reason; a resolution is never held', async () => {
      delivery = make({}, () => clock, store, [notifier], { held: () => 'held: incident #3 fires to this receiver' });
      store.commitEvaluation('r', {}, [alert('down', 'g', 0, 0, 'warning', 'firing'), alert('up', 'g2', 0, 0, 'warning', 'resolved')], clock);
      await delivery.drain(1_000);
      expect(notifier.groups).toEqual([['up']]);
      expect(store.outbox('muted').map((r) => [r.summary, r.lastError])).toEqual([['down changed', 'held: incident #3 fires to this receiver']]);
    });
  });

  describe('the journal says what happened to each notification', () => {
    const said = (msg: string) => logs.filter((l) => l['msg'] === msg);

    it('delivered: one, or a group, with the receiver, the count, the outbox ids and the rules', async () => {
      store.commitEvaluation('r', {}, [alert('a'), alert('b', 'g2'), alert('c', 'g2')], clock);
      await delivery.drain(1_000);
      expect(said('notification delivered')).toEqual([expect.objectContaining({ level: 30, receiver: 'fake', alerts: 1, outboxIds: [1], rules: ['r'] })]);
      expect(said('notification group delivered')).toEqual([expect.objectContaining({ receiver: 'fake', alerts: 2, outboxIds: [2, 3], rules: ['r'] })]);
    });

    it('a storm lists the first 20 outbox ids', async () => {
      store.commitEvaluation('r', {}, Array.from({ length: 25 }, (_, i) => alert(`n${i}`)), clock);
      await delivery.drain(1_000);
      expect(said('notification group delivered')[0]).toMatchObject({ alerts: 25, outboxIds: Array.from({ length: 20 }, (_, i) => i + 1) });
    });

    it('failed, to be retried: the reason, the error and the wait', async () => {
      store.commitEvaluation('r', {}, [alert('a')], clock);
      notifier.failWith = new DeliveryError('HTTP 503', 'http_503', true);
      await delivery.drain(1_000);
      expect(said('notification failed; will retry')).toEqual([expect.objectContaining({ level: 40, receiver: 'fake', reason: 'http_503', error: 'HTTP 503', retryInMs: 1_000, outboxIds: [1] })]);
    });

    it('failed for good: dead-lettered with the reason', async () => {
      store.commitEvaluation('r', {}, [alert('a')], clock);
      notifier.failWith = new DeliveryError('HTTP 410: archived', 'http_410', false);
      await delivery.drain(1_000);
      expect(said('notification failed permanently; dead-lettered')).toEqual([expect.objectContaining({ level: 50, receiver: 'fake', reason: 'http_410', error: 'HTTP 410: archived', outboxIds: [1] })]);
    });

    it('expired, and sent twice without an answer: each names the row and its rule', async () => {
      store.commitEvaluation('r', {}, [alert('a')], clock);
      clock += 61_000;
      await delivery.drain(1_000);
      expect(said('notification expired; dead-lettered')).toEqual([expect.objectContaining({ level: 50, receiver: 'fake', outboxId: 1, rule: 'r', reason: 'expired' })]);
      store.commitEvaluation('r', {}, [alert('b')], clock);
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
