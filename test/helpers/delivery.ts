import { clockOf } from '../../src/base/clock.js';
import { createLogger } from '../../src/base/log.js';
import type { AlertMessage, DeliveryError, Notifier } from '../../src/channels/types.js';
import { Delivery, type DeliveryDeps, type DeliveryOptions } from '../../src/delivery/delivery.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { NewAlert, StateStore } from '../../src/store/index.js';

// What the delivery specs share: a notifier that records and fails as told, a news alert to
// one receiver, and a Delivery on a test's store and clock with short, known limits.

/** A notifier of our own interface that records groups and fails as told. */
export class FakeNotifier implements Notifier {
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

export const alert = (subject: string, groupKey = 'g', groupWaitMs = 0, groupIntervalMs = 0, severity: NewAlert['severity'] = 'warning', status: NewAlert['status'] = 'event'): NewAlert => ({
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

export const newMetrics = () => createMetrics({ version: 't', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] });

export interface DeliveryParts {
  store: StateStore;
  notifiers: Notifier[];
  metrics: ReturnType<typeof newMetrics>;
  /** Where the journal goes (JSON lines, parsed). */
  logs: Array<Record<string, unknown>>;
  /** The wall clock and the steady clock. */
  now: () => number;
  mono: () => number;
}

/** A Delivery over the given parts: backoff 1–10 s, maxAge 1m, no jitter (random 1). */
export const testDelivery = (parts: DeliveryParts, options: Partial<DeliveryOptions> = {}, extra: Pick<DeliveryDeps, 'held' | 'digestOf'> = {}): Delivery =>
  new Delivery({
    store: parts.store,
    notifiers: parts.notifiers,
    metrics: parts.metrics,
    log: createLogger('info', false, (line) => parts.logs.push(JSON.parse(line) as Record<string, unknown>)).log,
    options: { backoffMs: 1_000, backoffMaxMs: 10_000, maxRetryAfterMs: 600_000, failingAfterMs: 600_000, deadLetterHoldMs: 86_400_000, maxAgeMs: 60_000, ...options },
    clock: clockOf({ now: parts.now, mono: parts.mono }),
    random: () => 1,
    ...extra,
  });
