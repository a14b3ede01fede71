import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { systemClock, type Clock } from '../../base/clock.js';
import { durationMs, secretString, secretUrl } from '../../base/fields.js';
import type { Secret } from '../../base/secret.js';
import { postJson } from '../post-json.js';
import { DeliveryError, type AlertMessage, type Channel, type ChannelContext, type Notifier, type ReceiverBase } from '../types.js';

export interface WebhookReceiver extends ReceiverBase {
  type: 'webhook';
  url?: Secret | undefined;
  secret?: Secret | undefined;
  timeout: number;
  minInterval: number;
}

/** The JSON every webhook receives (docs/delivery.md); versioned so receivers can rely on it. */
export function webhookBody(receiver: string, alerts: readonly AlertMessage[]) {
  const statuses = new Set(alerts.map((a) => a.status));
  return {
    version: '1',
    receiver,
    status: statuses.size === 1 ? [...statuses][0] : 'mixed',
    alerts: alerts.map((a) => ({
      id: a.alertId,
      status: a.status,
      rule: a.rule,
      kind: a.kind,
      severity: a.severity,
      subject: a.subject,
      summary: a.summary,
      labels: a.labels,
      details: a.details,
      at: a.at,
    })),
  };
}

/** `v1=` hex HMAC-SHA256 of `${timestamp}.${body}` with the shared secret. */
export function signature(secret: string, timestamp: string, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export const webhookChannel: Channel<WebhookReceiver> = {
  type: 'webhook',
  schema: z.strictObject({
    url: secretUrl.optional(),
    urlFile: z.string().min(1).optional(),
    /** Signs each request: X-Avawatch-Signature. */
    secret: secretString.optional(),
    secretFile: z.string().min(1).optional(),
    timeout: durationMs.default(10_000),
    minInterval: durationMs.default(0),
  }),
  disabledReason: (r) => (r.url ? undefined : 'url is empty'),
  digests: true,
  secretFields: [
    { path: [], key: 'url', url: true },
    { path: [], key: 'secret', url: false },
  ],
  create: (r) => new WebhookNotifier(r),
};

class WebhookNotifier implements Notifier {
  readonly type = 'webhook';
  readonly name: string;
  readonly minIntervalMs: number;
  readonly timeoutMs: number;
  #clock: Clock = systemClock;

  constructor(private readonly receiver: WebhookReceiver) {
    this.name = receiver.name;
    this.minIntervalMs = receiver.minInterval;
    this.timeoutMs = receiver.timeout;
  }

  start(ctx: ChannelContext): void {
    this.#clock = ctx.clock;
  }

  async send(alerts: readonly AlertMessage[], signal: AbortSignal): Promise<void> {
    const url = this.receiver.url;
    if (!url) throw new DeliveryError(`webhook receiver "${this.name}" has no url`, 'disabled', false);
    const body = JSON.stringify(webhookBody(this.name, alerts));
    // The receiver checks it against its own wall clock (a replayed request is old).
    const timestamp = String(Math.floor(this.#clock.now() / 1000));
    const headers: Record<string, string> = { 'x-avawatch-timestamp': timestamp };
    if (this.receiver.secret) headers['x-avawatch-signature'] = signature(this.receiver.secret.reveal(), timestamp, body);
    await postJson(url.reveal(), body, { prefix: `webhook receiver "${this.name}"`, timeoutMs: this.receiver.timeout, signal, headers });
  }
}
