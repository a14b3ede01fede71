import { z } from 'zod';
import { systemClock } from '../../base/clock.js';
import { durationMs, httpUrl } from '../../base/fields.js';
import { postJson } from '../post-json.js';
import { endedAt, PostedAlerts, type PostableAlert } from './posted.js';
import { DeliveryError, type AlertMessage, type Channel, type ChannelContext, type Notifier, type ReceiverBase } from '../types.js';

export interface AlertmanagerReceiver extends ReceiverBase {
  type: 'alertmanager';
  /** One Alertmanager, or every peer of a cluster (each gets every alert; the cluster deduplicates). */
  url: string | string[];
  /**
   * A firing alert is sent again at its rule's first evaluation this long after its last
   * send (a reminder row in the outbox): Alertmanager expires one it stops hearing of.
   */
  resendInterval: number;
  /** Where generatorURL points (default: this daemon's /api/v1/alerts). */
  externalUrl?: string | undefined;
  timeout: number;
  minInterval: number;
}

/** Alertmanager wants label names for annotation keys: "Period ends" → period_ends. */
function annotationKey(name: string): string {
  const key = name.replace(/[^a-zA-Z0-9_]+/g, '_').replace(/^_+|_+$/g, '').toLowerCase();
  return /^[a-z_]/.test(key) ? key : `_${key}`;
}

/** The labels Alertmanager identifies an alert by. */
export function amLabels(a: AlertMessage): Record<string, string> {
  return { alertname: a.rule, ...a.labels, subject: a.subject };
}

/**
 * The alerts in Alertmanager's API v2 shape. A firing alert (or an event) ends `ttlMs`
 * from `now` (the wall) unless posted again; a resolved one ends then.
 */
export function postableAlerts(alerts: readonly AlertMessage[], o: { ttlMs: (a: AlertMessage) => number; generatorURL: string }, now: number, endAt = now): PostableAlert[] {
  return alerts.map((a) => {
    const annotations: Record<string, string> = { summary: a.summary, kind: a.kind };
    for (const [k, v] of Object.entries(a.details)) annotations[annotationKey(k)] = v;
    const alert = { labels: amLabels(a), annotations, startsAt: a.at, endsAt: new Date(now + o.ttlMs(a)).toISOString(), generatorURL: o.generatorURL };
    return a.status === 'resolved' ? endedAt(alert, endAt) : alert;
  });
}

/** How far this host's clock may run ahead of an Alertmanager's that is further off is a broken clock, not skew. */
const MAX_AHEAD_MS = 5 * 60_000;

/**
 * How far this host's wall clock may run ahead of Alertmanager's, from its answer's Date
 * (whole seconds, so Alertmanager's time is at least that): `now` minus it, 0 when behind or
 * unknown, at most MAX_AHEAD_MS.
 */
export function aheadOf(date: string | null, now: number): number {
  const at = Date.parse(date ?? '');
  return Number.isFinite(at) ? Math.min(MAX_AHEAD_MS, Math.max(0, now - at)) : 0;
}

export const alertmanagerChannel: Channel<AlertmanagerReceiver> = {
  type: 'alertmanager',
  schema: z.strictObject({
    url: z.union([httpUrl, z.array(httpUrl).min(1, 'list at least one Alertmanager URL (every peer of a cluster)')]),
    resendInterval: durationMs.default(60_000),
    externalUrl: httpUrl.optional(),
    timeout: durationMs.default(10_000),
    minInterval: durationMs.default(0),
  }),
  disabledReason: () => undefined,
  digests: false,
  resendInterval: (r) => r.resendInterval,
  secretFields: [],
  create: (r) => new AlertmanagerNotifier(r),
};

export class AlertmanagerNotifier implements Notifier {
  readonly type = 'alertmanager';
  /** An alert posted twice is one alert (its labels): it is sent again every resendInterval anyway. */
  readonly idempotent = true;
  readonly name: string;
  readonly minIntervalMs: number;
  readonly timeoutMs: number;
  generatorURL: string;
  #ctx: ChannelContext | undefined;
  readonly #posted: PostedAlerts;
  /** How far this host's clock ran ahead of Alertmanager's at its last answer (aheadOf). */
  #ahead = 0;

  constructor(readonly receiver: AlertmanagerReceiver) {
    this.name = receiver.name;
    this.minIntervalMs = receiver.minInterval;
    this.timeoutMs = receiver.timeout;
    this.generatorURL = receiver.externalUrl ?? 'http://127.0.0.1:9464/api/v1/alerts';
    this.#posted = new PostedAlerts(receiver.resendInterval);
  }

  start(ctx: ChannelContext): void {
    this.generatorURL = this.receiver.externalUrl ?? ctx.alertsUrl ?? this.generatorURL;
    this.#ctx = ctx;
  }

  stop(): void {
    this.#ctx = undefined;
  }

  /**
   * Posts to every peer, as Prometheus does: delivered when at least one accepted, since
   * every peer holds the alert, and the peers share their notification log, so one
   * notifies. All failing: the first peer's error. A state alert whose labels changed since
   * its last post (an escalation) ends its old label set in the same post, so Alertmanager
   * never keeps the old one firing until it times out and then reports it resolved.
   */
  async send(alerts: readonly AlertMessage[], signal: AbortSignal): Promise<void> {
    // Alertmanager reads startsAt and endsAt on its own wall clock: what ends, ends at its now
    // or before (one it reads as still to come loses to the firing alert's later endsAt, its
    // Alert.Merge), so by as much as this host's clock ran ahead of it at its last answer.
    const clock = this.#ctx?.clock ?? systemClock;
    const now = clock.now();
    const endAt = now - this.#ahead;
    const postable = postableAlerts(alerts, { ttlMs: (a) => this.#ttlMs(a.rule), generatorURL: this.generatorURL }, now, endAt);
    const body = JSON.stringify([...postable, ...this.#posted.replaced(alerts, postable, endAt)]);
    const urls = Array.isArray(this.receiver.url) ? this.receiver.url : [this.receiver.url];
    const posts = urls.map((url, i) =>
      postJson(`${url.replace(/\/+$/, '')}/api/v2/alerts`, body, {
        prefix: `alertmanager receiver "${this.name}"${urls.length > 1 ? ` (peer ${i + 1} of ${urls.length})` : ''}`,
        timeoutMs: this.receiver.timeout,
        signal,
      }),
    );
    // The first peer to accept is enough: a black-holed one must not hold up the receiver.
    try {
      const answer = await Promise.any(posts);
      this.#ahead = aheadOf(answer.headers.get('date'), clock.now());
    } catch (err) {
      const errors = (err as AggregateError).errors as unknown[];
      throw errors.find((e) => e instanceof DeliveryError && e.retryable) ?? errors[0];
    }
    this.#posted.record(alerts, postable, now);
  }

  /**
   * A firing alert lives three resend intervals, or three times the wait for its rule's
   * next evaluation (where it is posted again) when that is longer.
   */
  #ttlMs(rule: string): number {
    return 3 * Math.max(this.receiver.resendInterval, this.#ctx?.untilNext(rule) ?? 0);
  }
}
