import { IncomingWebhook } from '@slack/webhook';
import { z } from 'zod';
import { durationMs, secretUrl } from '../../config/fields.js';
import type { Secret } from '../../config/secret.js';
import { linkedSignal } from '../../abort.js';
import { parseRetryAfter, retryableStatus } from '../../retry.js';
import { bodyDetail } from '../post-json.js';
import { DeliveryError, type AlertMessage, type Channel, type Notifier, type ReceiverBase } from '../types.js';
import { slackGroupMessage, slackMessage } from './message.js';

export interface SlackReceiver extends ReceiverBase {
  type: 'slack';
  webhookUrl?: Secret | undefined;
  timeout: number;
  minInterval: number;
}

// Slack answers these for a webhook that will never work again: do not retry.
const PERMANENT = new Map([
  [400, 'invalid payload'],
  [403, 'forbidden (action_prohibited)'],
  [404, 'webhook or channel not found'],
  [410, 'channel archived or webhook revoked'],
]);

export const slackChannel: Channel<SlackReceiver> = {
  type: 'slack',
  schema: z.strictObject({
    webhookUrl: secretUrl.optional(),
    /** A file holding the webhook URL; instead of webhookUrl. */
    webhookUrlFile: z.string().min(1).optional(),
    timeout: durationMs.default(10_000),
    minInterval: durationMs.default(1_000),
  }),
  disabledReason: (r) => (r.webhookUrl ? undefined : 'webhookUrl is empty'),
  secretFields: [{ path: [], key: 'webhookUrl', url: true }],
  create: (r) => new SlackNotifier(r),
};

class SlackNotifier implements Notifier {
  readonly type = 'slack';
  readonly name: string;
  readonly minIntervalMs: number;
  readonly timeoutMs: number;

  constructor(private readonly receiver: SlackReceiver) {
    this.name = receiver.name;
    this.minIntervalMs = receiver.minInterval;
    this.timeoutMs = receiver.timeout;
  }

  async send(alerts: readonly AlertMessage[], signal: AbortSignal): Promise<void> {
    const url = this.receiver.webhookUrl;
    if (!url) throw new DeliveryError(`slack receiver "${this.name}" has no webhookUrl`, 'disabled', false);
    // The library drops the 429's Retry-After; a fetch of our own keeps it, and carries
    // our deadline and the shutdown signal.
    let retryAfter: string | null = null;
    const attempt = linkedSignal(signal, this.receiver.timeout);
    const webhook = new IncomingWebhook(url.reveal(), {
      fetch: async (input, init) => {
        const res = await fetch(input, { ...init, signal: attempt.signal });
        retryAfter = res.headers.get('retry-after');
        return res;
      },
    });
    try {
      await webhook.send(alerts.length === 1 ? slackMessage(alerts[0] as AlertMessage) : slackGroupMessage(alerts));
    } catch (err) {
      throw classify(this.name, err, retryAfter);
    } finally {
      attempt.dispose();
    }
  }
}

function classify(name: string, err: unknown, retryAfter: string | null): DeliveryError {
  const e = err as { statusCode?: number; body?: string; original?: { name?: string; cause?: { code?: string } } };
  const prefix = `slack receiver "${name}"`;
  if (typeof e.statusCode === 'number') {
    const status = e.statusCode;
    // Slack answers a short error code such as channel_not_found. Anything else (a proxy's
    // page, a body echoing the request) may carry the webhook URL: not shown.
    const detail = bodyDetail(e.body);
    const permanent = PERMANENT.get(status);
    if (permanent) return new DeliveryError(`${prefix}: HTTP ${status}: ${permanent}${detail}`, `http_${status}`, false);
    const retryable = retryableStatus(status);
    const wait = status === 429 ? parseRetryAfter(retryAfter) : undefined;
    return new DeliveryError(`${prefix}: HTTP ${status}${detail}`, `http_${status}`, retryable, wait);
  }
  const original = e.original;
  if (original?.name === 'TimeoutError' || original?.name === 'AbortError') {
    return new DeliveryError(`${prefix}: no answer in time`, 'timeout', true);
  }
  const code = original?.cause?.code ?? 'network error';
  return new DeliveryError(`${prefix}: ${code}`, 'network', true);
}
