import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clockAt } from '../base/clock.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../base/log.js';
import { DeliveryError, type AlertMessage, type Notifier } from '../channels/types.js';
import { createMetrics } from '../metrics/registry.js';
import { type NewAlert, SqliteStore, type StateStore } from '../store/index.js';
import { Delivery } from './delivery.js';

// A silence added while an ordinary notification waits in the outbox (for its group, or to be
// retried) mutes it, as it mutes a digest's rows: the row is not sent and reads `muted` in
// `avawatch outbox`; a firing alert is owed to the receiver once the silence ends, so it never
// hears a RESOLVED for a FIRING it did not get.

class FlakyNotifier implements Notifier {
  readonly type = 'fake';
  readonly minIntervalMs = 0;
  readonly timeoutMs = 1_000;
  readonly name = 'ops';
  readonly sent: string[] = [];
  failWith: DeliveryError | undefined;
  async send(alerts: readonly AlertMessage[]): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.sent.push(...alerts.map((a) => `${a.status} ${a.subject}`));
  }
}

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const firing = (groupWaitMs = 0): NewAlert => ({
  rule: 'ending',
  kind: 'validation-end',
  status: 'firing',
  severity: 'warning',
  subject: NODE,
  summary: `${NODE} validation ends in 2d`,
  labels: { rule: 'ending', node: NODE, severity: 'warning' },
  details: {},
  conditionKey: NODE,
  targets: [{ receiver: 'ops', groupKey: 'ending', groupWaitMs, groupIntervalMs: 0 }],
});
const condition = { key: NODE, subject: NODE, summary: `${NODE} validation ends in 2d`, labels: { node: NODE }, details: {} };

describe('a silence added while a notification waits in the outbox', () => {
  let dir: string;
  let store: StateStore;
  let clock: number;
  let notifier: FlakyNotifier;
  let delivery: Delivery;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'avawatch-silence-waiting-'));
    store = SqliteStore.open(join(dir, 's.db'));
    clock = 1_000_000;
    notifier = new FlakyNotifier();
    delivery = new Delivery({
      store,
      notifiers: [notifier],
      metrics: createMetrics({ version: 't', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] }),
      log: createLogger('silent', false).log,
      options: { backoffMs: 1_000, backoffMaxMs: 10_000, maxRetryAfterMs: 600_000, failingAfterMs: 600_000, deadLetterHoldMs: 86_400_000, maxAgeMs: 3_600_000 },
      clock: clockAt(() => clock),
      random: () => 1,
    });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const silence = async () => store.addSilence({ matchers: [{ name: 'node', value: NODE, regex: false }], startsAt: clock, endsAt: clock + 3_600_000, comment: 'node upgrade', createdBy: 'ops', createdAt: clock });
  const commit = async (alert: NewAlert) =>
    await store.commitEvaluation('ending', {}, [alert], clock, [{ key: NODE, tier: '', state: 'firing', startedAt: clock, notifiedAt: clock, clearedAt: null, mutedAt: null, mutedReceivers: [], notifiedReceivers: { ops: clock }, condition }]);

  it('a row waiting to be retried is not sent: it is muted, and the firing alert owes it to the receiver when the silence ends', async () => {
    await commit(firing());
    notifier.failWith = new DeliveryError('HTTP 503', 'http_503', true);
    await delivery.drain(1_000);
    expect(await store.outbox('pending')).toHaveLength(1);
    await silence();
    notifier.failWith = undefined;
    clock += 10_000;
    await delivery.drain(1_000);
    expect(notifier.sent).toEqual([]);
    expect(await store.outbox('pending')).toEqual([]);
    expect((await store.outbox('muted')).map((r) => r.lastError)).toEqual([expect.stringMatching(/^silenced by #1 until \S+: node upgrade$/)]);
    expect(await store.loadActive('ending')).toEqual([expect.objectContaining({ key: NODE, state: 'firing', mutedReceivers: ['ops'], mutedAt: clock })]);
  });

  it('a row waiting for its group is not sent either', async () => {
    await commit(firing(30_000));
    await delivery.drain(1_000);
    await silence();
    clock += 30_000;
    await delivery.drain(1_000);
    expect(notifier.sent).toEqual([]);
    expect(await store.outbox('muted')).toHaveLength(1);
    expect((await store.loadActive('ending'))[0]?.mutedReceivers).toEqual(['ops']);
  });

  it('an alert that resolved meanwhile owes nothing; a row no silence matches goes out', async () => {
    await commit(firing());
    notifier.failWith = new DeliveryError('HTTP 503', 'http_503', true);
    await delivery.drain(1_000);
    await store.commitEvaluation('ending', {}, [], clock, []); // resolved (its notification routed elsewhere)
    await silence();
    notifier.failWith = undefined;
    clock += 10_000;
    await delivery.drain(1_000);
    expect(await store.loadActive('ending')).toEqual([]);
    await store.commitEvaluation('other', {}, [{ ...firing(), rule: 'other', labels: { rule: 'other', node: 'NodeID-other' }, conditionKey: 'NodeID-other' }], clock);
    await delivery.drain(1_000);
    expect(notifier.sent).toEqual([`firing ${NODE}`]);
  });
});
