import { z } from 'zod';
import { durationMs, httpUrl } from '../../config/fields.js';
import { postJson } from '../post-json.js';
import { DeliveryError, type AlertMessage, type Channel, type ChannelContext, type Notifier, type ReceiverBase } from '../types.js';

export interface AlertmanagerReceiver extends ReceiverBase {
  type: 'alertmanager';
  /** One Alertmanager, or every peer of a cluster (each gets every alert; the cluster deduplicates). */
  url: string | string[];
  /** Firing alerts are posted again this often, so Alertmanager never times them out. */
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

/**
 * The alerts in Alertmanager's API v2 shape. A firing alert ends three resend intervals
 * from now unless posted again; a resolved one ends now; an event lives for one window.
 */
export function postableAlerts(alerts: readonly AlertMessage[], o: { resendInterval: number; generatorURL: string }, now = Date.now()) {
  return alerts.map((a) => {
    const annotations: Record<string, string> = { summary: a.summary, kind: a.kind };
    for (const [k, v] of Object.entries(a.details)) annotations[annotationKey(k)] = v;
    const endsAt = a.status === 'resolved' ? new Date(now) : new Date(now + 3 * o.resendInterval);
    return {
      labels: { alertname: a.rule, ...a.labels, subject: a.subject },
      annotations,
      startsAt: a.at,
      endsAt: endsAt.toISOString(),
      generatorURL: o.generatorURL,
    };
  });
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
  secretFields: [],
  create: (r) => new AlertmanagerNotifier(r),
};

export class AlertmanagerNotifier implements Notifier {
  readonly type = 'alertmanager';
  /** An alert posted twice is one alert (its labels): it is re-posted every resendInterval anyway. */
  readonly idempotent = true;
  readonly name: string;
  readonly minIntervalMs: number;
  readonly timeoutMs: number;
  generatorURL: string;
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly receiver: AlertmanagerReceiver) {
    this.name = receiver.name;
    this.minIntervalMs = receiver.minInterval;
    this.timeoutMs = receiver.timeout;
    this.generatorURL = receiver.externalUrl ?? 'http://127.0.0.1:9464/api/v1/alerts';
  }

  /**
   * Alertmanager forgets an alert that is not posted again before its endsAt: every
   * resendInterval, the firing alerts that reach this receiver are posted again.
   */
  start(ctx: ChannelContext): void {
    this.generatorURL = this.receiver.externalUrl ?? ctx.alertsUrl ?? this.generatorURL;
    this.stop();
    this.#timer = setInterval(() => {
      const messages = ctx.firing(ctx.now());
      if (messages.length > 0) this.send(messages, new AbortController().signal).catch(ctx.failed);
    }, this.receiver.resendInterval);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Posts to every peer, as Prometheus does: delivered when at least one accepted, since
   * every peer holds the alert, and the peers share their notification log, so one notifies. All failing: the first peer's error.
   */
  async send(alerts: readonly AlertMessage[], signal: AbortSignal): Promise<void> {
    const body = JSON.stringify(postableAlerts(alerts, { resendInterval: this.receiver.resendInterval, generatorURL: this.generatorURL }));
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
      await Promise.any(posts);
    } catch (err) {
      const errors = (err as AggregateError).errors as unknown[];
      throw errors.find((e) => e instanceof DeliveryError && e.retryable) ?? errors[0];
    }
  }
}
