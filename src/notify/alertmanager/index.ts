import { z } from 'zod';
import { linkedSignal } from '../../abort.js';
import { parseRetryAfter } from '../../api/http.js';
import { durationMs, httpUrl } from '../../config/fields.js';
import { VERSION } from '../../version.js';
import { DeliveryError, type AlertMessage, type Channel, type Notifier, type ReceiverBase } from '../types.js';

export interface AlertmanagerReceiver extends ReceiverBase {
  type: 'alertmanager';
  url: string;
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
    url: httpUrl,
    resendInterval: durationMs.default(60_000),
    externalUrl: httpUrl.optional(),
    timeout: durationMs.default(10_000),
    minInterval: durationMs.default(0),
  }),
  disabledReason: () => undefined,
  secrets: () => [],
  create: (r) => new AlertmanagerNotifier(r),
};

export class AlertmanagerNotifier implements Notifier {
  readonly type = 'alertmanager';
  readonly name: string;
  readonly minIntervalMs: number;
  readonly timeoutMs: number;
  /** Set by the app once its HTTP server listens. */
  generatorURL: string;

  constructor(readonly receiver: AlertmanagerReceiver) {
    this.name = receiver.name;
    this.minIntervalMs = receiver.minInterval;
    // Connect, greeting and each command may each take the timeout (email): allow for all.
    this.timeoutMs = receiver.timeout * 3;
    this.generatorURL = receiver.externalUrl ?? 'http://127.0.0.1:9464/api/v1/alerts';
  }

  async send(alerts: readonly AlertMessage[], signal: AbortSignal): Promise<void> {
    const body = JSON.stringify(postableAlerts(alerts, { resendInterval: this.receiver.resendInterval, generatorURL: this.generatorURL }));
    const prefix = `alertmanager receiver "${this.name}"`;
    const attempt = linkedSignal(signal, this.receiver.timeout);
    let res: Response;
    try {
      res = await fetch(`${this.receiver.url.replace(/\/+$/, '')}/api/v2/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': `avawatch/${VERSION}` },
        body,
        signal: attempt.signal,
      });
      const text = await res.text();
      if (res.ok) return;
      const said = text.replace(/\s+/g, ' ').trim().slice(0, 160);
      const retryable = res.status === 429 || res.status >= 500;
      const wait = res.status === 429 ? parseRetryAfter(res.headers.get('retry-after') ?? undefined) : undefined;
      throw new DeliveryError(`${prefix}: HTTP ${res.status}${said ? `: ${said}` : ''}`, `http_${res.status}`, retryable, wait);
    } catch (err) {
      if (err instanceof DeliveryError) throw err;
      if (attempt.timedOut) throw new DeliveryError(`${prefix}: no answer within ${this.receiver.timeout} ms`, 'timeout', true);
      throw new DeliveryError(`${prefix}: ${(err as { cause?: { code?: string } }).cause?.code ?? 'network error'}`, 'network', true);
    } finally {
      attempt.dispose();
    }
  }
}
