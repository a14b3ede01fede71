import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clockAt } from '../base/clock.js';
import { createLogger } from '../base/log.js';
import { DeliveryError, type AlertMessage, type Notifier } from '../channels/types.js';
import { createMetrics } from '../metrics/registry.js';
import { type NewAlert, SqliteStore, type StateStore } from '../store/index.js';
import { Delivery, type DeliveryOptions } from './delivery.js';

// The daemon's delivery: each receiver's worker, started once, woken by new rows (kick), by
// its timers (a group's wait, a retry, a groupInterval) and stopped at shutdown. Fake timers
// and a test clock moved together: no real wait.

class FakeNotifier implements Notifier {
  readonly type = 'fake';
  readonly minIntervalMs = 0;
  readonly timeoutMs = 1_000;
  readonly idempotent = false;
  readonly sent: string[][] = [];
  failWith: Error | undefined;
  /** Each attempt waits for this (an attempt that hangs until it is aborted). */
  hang: ((signal: AbortSignal) => Promise<void>) | undefined;
  constructor(readonly name = 'fake') {}
  async send(alerts: readonly AlertMessage[], signal: AbortSignal): Promise<void> {
    await this.hang?.(signal);
    if (this.failWith) throw this.failWith;
    this.sent.push(alerts.map((a) => a.subject));
  }
}

const alert = (subject: string, groupKey = 'g', groupIntervalMs = 0, groupWaitMs = 0): NewAlert => ({
  rule: 'r',
  kind: 'k',
  status: 'event',
  severity: 'warning',
  subject,
  summary: `${subject} changed`,
  labels: {},
  details: {},
  targets: [{ receiver: 'fake', groupKey, groupWaitMs, groupIntervalMs }],
});

describe('the delivery worker', () => {
  let dir: string;
  let store: StateStore;
  let clock: number;
  let notifier: FakeNotifier;
  let logs: Array<{ msg: string; err?: string }>;
  const running: Delivery[] = [];
  const make = (options: Partial<DeliveryOptions> = {}): Delivery => {
    const d = new Delivery({
      store,
      notifiers: [notifier],
      metrics: createMetrics({ version: 't', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] }),
      log: createLogger('info', false, (line) => logs.push(JSON.parse(line) as { msg: string })).log,
      options: { backoffMs: 1_000, backoffMaxMs: 10_000, maxRetryAfterMs: 600_000, failingAfterMs: 60_000, deadLetterHoldMs: 86_400_000, maxAgeMs: 3_600_000, ...options },
      clock: clockAt(() => clock),
      random: () => 1,
    });
    running.push(d);
    return d;
  };
  /** Time passes: the test clock and the timers together. */
  const advance = async (ms: number): Promise<void> => {
    for (let left = ms; left > 0; left -= Math.min(left, 100)) {
      const step = Math.min(left, 100);
      clock += step;
      await vi.advanceTimersByTimeAsync(step);
    }
  };

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    dir = mkdtempSync(join(tmpdir(), 'avawatch-worker-'));
    store = SqliteStore.open(join(dir, 's.db'));
    clock = 1_000_000;
    notifier = new FakeNotifier();
    logs = [];
  });
  afterEach(async () => {
    const stopping = running.splice(0).map((d) => d.stop(0));
    await vi.advanceTimersByTimeAsync(0);
    await Promise.all(stopping);
    vi.useRealTimers();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a row when it is due, woken by its commit (kick), not before', async () => {
    const d = make();
    await d.start();
    await advance(5_000);
    await store.commitEvaluation('r', {}, [alert('a')], clock);
    d.kick();
    await advance(100);
    expect(notifier.sent).toEqual([['a']]);
    expect(await store.outbox('sent')).toHaveLength(1);
  });

  it('a row committed without a kick is still found within 30 s', async () => {
    const d = make();
    await d.start();
    await advance(1_000);
    await store.commitEvaluation('r', {}, [alert('a')], clock);
    await advance(28_000);
    expect(notifier.sent).toEqual([]);
    await advance(2_000);
    expect(notifier.sent).toEqual([['a']]);
  });

  it("waits out a receiver's Retry-After, then sends what waited", async () => {
    const d = make();
    await store.commitEvaluation('r', {}, [alert('a'), alert('b', 'g2')], clock);
    notifier.failWith = new DeliveryError('busy', 'http_429', true, 20_000);
    await d.start();
    await advance(1_000);
    notifier.failWith = undefined;
    await advance(18_900);
    expect(notifier.sent).toEqual([]);
    await advance(200);
    expect(notifier.sent).toEqual([['a'], ['b']]);
  });

  it('a group inside its groupInterval is sent when it ends, the earliest of two groups first', async () => {
    const d = make();
    await store.commitEvaluation('r', {}, [alert('a', 'g1', 40_000), alert('b', 'g2', 20_000)], clock);
    await d.start();
    await vi.advanceTimersByTimeAsync(0);
    await advance(1_000);
    expect(notifier.sent).toEqual([['a'], ['b']]);
    await store.commitEvaluation('r', {}, [alert('c', 'g1', 40_000), alert('d', 'g2', 20_000)], clock);
    d.kick();
    await advance(18_000);
    expect(notifier.sent).toHaveLength(2);
    await advance(1_000);
    expect(notifier.sent).toEqual([['a'], ['b'], ['d']]);
    await advance(19_000);
    expect(notifier.sent).toHaveLength(3);
    await advance(1_000);
    expect(notifier.sent).toEqual([['a'], ['b'], ['d'], ['c']]);
  });

  it('a failing receiver whose rows are all gone (muted) is no longer failing', async () => {
    const d = make();
    await store.commitEvaluation('r', {}, [{ ...alert('a'), labels: { node: 'N' } }], clock);
    notifier.failWith = new DeliveryError('HTTP 503', 'http_503', true);
    await d.start();
    await advance(70_000);
    expect(d.problems()).toEqual([expect.stringMatching(/^receiver fake: every attempt failed for 1m/)]);
    await store.addSilence({ matchers: [{ name: 'node', value: 'N', regex: false }], startsAt: clock, endsAt: clock + 3_600_000, comment: 'upgrade', createdBy: 'ops', createdAt: clock });
    await advance(11_000);
    expect(await store.outbox('muted')).toHaveLength(1);
    expect(d.problems()).toEqual([]);
  });

  it('an error of its own loop is logged and retried after 1 s: the row still goes out', async () => {
    const d = make();
    await store.commitEvaluation('r', {}, [alert('a')], clock);
    const claim = store.claimDue.bind(store);
    let broken = true;
    store.claimDue = (...args) => {
      if (broken) {
        broken = false;
        throw new Error('SQLITE_BUSY: database is locked');
      }
      return claim(...args);
    };
    await advance(1_000);
    await d.start();
    await advance(0);
    expect(notifier.sent).toEqual([]);
    expect(logs).toContainEqual(expect.objectContaining({ msg: 'delivery loop error; retrying in 1s', receiver: 'fake', err: 'Error: SQLITE_BUSY: database is locked' }));
    await advance(1_000);
    expect(notifier.sent).toEqual([['a']]);
  });

  it('stop() aborts an attempt still running after its grace: the row stays pending, free for the next start', async () => {
    const d = make();
    await store.commitEvaluation('r', {}, [alert('a')], clock);
    notifier.hang = (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    await d.start();
    await advance(1_000);
    const stopped = d.stop(2_000);
    await advance(1_900);
    let done = false;
    void stopped.then(() => (done = true));
    await advance(0);
    expect(done).toBe(false);
    await advance(100);
    await stopped;
    expect(await store.outbox('pending')).toHaveLength(1);
    expect(await store.outbox('dead')).toEqual([]);
    notifier.hang = undefined;
    expect(await make().drain(1_000)).toBe(0);
    expect(notifier.sent).toEqual([['a']]);
  });

  it("after a reload the new delivery keeps the receiver's Retry-After and each group's groupInterval", async () => {
    const old = make();
    await store.commitEvaluation('r', {}, [alert('a', 'g1', 60_000)], clock);
    await old.drain(1_000);
    await store.commitEvaluation('r', {}, [alert('b', 'g2')], clock);
    notifier.failWith = new DeliveryError('busy', 'http_429', true, 30_000);
    clock += 1_000;
    await old.drain(1_000);
    notifier.failWith = undefined;
    await store.commitEvaluation('r', {}, [alert('c', 'g1', 60_000)], clock);
    const next = make();
    next.inherit(old);
    clock += 29_000;
    await next.drain(1_000);
    expect(notifier.sent).toEqual([['a']]);
    clock += 1_000;
    await next.drain(1_000);
    expect(notifier.sent).toEqual([['a'], ['b']]);
    clock += 28_999;
    await next.drain(1_000);
    expect(notifier.sent).toEqual([['a'], ['b']]);
    clock += 1;
    await next.drain(1_000);
    expect(notifier.sent).toEqual([['a'], ['b'], ['c']]);
  });
});
