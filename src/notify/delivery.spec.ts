import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../log.js';
import { createMetrics } from '../metrics/registry.js';
import { Store, type NewAlert } from '../store/index.js';
import { Delivery } from './delivery.js';
import { DeliveryError, type AlertMessage, type Notifier } from './types.js';

/** A notifier of our own interface that records groups and fails as told. */
class FakeNotifier implements Notifier {
  readonly type = 'fake';
  readonly minIntervalMs = 0;
  readonly timeoutMs = 1_000;
  readonly groups: string[][] = [];
  failWith: DeliveryError | undefined;
  constructor(readonly name: string) {}
  async send(alerts: readonly AlertMessage[]): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.groups.push(alerts.map((a) => a.subject));
  }
}

const alert = (subject: string, groupKey = 'g', groupWaitMs = 0, groupIntervalMs = 0): NewAlert => ({
  rule: 'r',
  kind: 'k',
  status: 'event',
  severity: 'warning',
  subject,
  summary: `${subject} changed`,
  labels: {},
  details: {},
  targets: [{ receiver: 'fake', groupKey, groupWaitMs, groupIntervalMs, repeatMs: 0, muteTimeIntervals: [] }],
});

describe('delivery', () => {
  let dir: string;
  let store: Store;
  let clock: number;
  let notifier: FakeNotifier;
  let delivery: Delivery;
  const metrics = createMetrics({ version: 't', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'avawatch-delivery-'));
    store = Store.open(join(dir, 's.db'));
    clock = 1_000_000;
    notifier = new FakeNotifier('fake');
    delivery = new Delivery({
      store,
      notifiers: [notifier],
      metrics,
      log: createLogger('silent', false).log,
      options: { backoffMs: 1_000, backoffMaxMs: 10_000, maxAgeMs: 60_000 },
      now: () => clock,
      random: () => 1,
    });
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

  it('counts groupWait from the group’s first alert, so a late member joins the same message', async () => {
    store.commitEvaluation('r', {}, [alert('a', 'g', 30_000)], clock);
    clock += 3_000;
    store.commitEvaluation('r', {}, [alert('b', 'g', 30_000)], clock);
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([]);
    clock += 27_000;
    await delivery.drain(1_000);
    expect(notifier.groups).toEqual([['a', 'b']]);
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

  it('dead-letters what stays undelivered past maxAge, saying so, and counts it', async () => {
    store.commitEvaluation('r', {}, [alert('a')], clock);
    notifier.failWith = new DeliveryError('HTTP 503', 'http_503', true);
    for (let i = 0; i < 10 && store.outbox('pending').length > 0; i++) {
      await delivery.drain(1_000);
      clock += 20_000;
    }
    expect(store.outbox('dead')).toEqual([expect.objectContaining({ lastError: 'undelivered after 1m; last error: HTTP 503' })]);
    const failed = await metrics.notificationsFailed.get();
    expect(failed.values.find((v) => v.labels.reason === 'expired')?.value).toBe(1);
  });
});
