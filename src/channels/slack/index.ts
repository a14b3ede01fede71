import { z } from 'zod';
import { durationMs, secretUrl } from '../../base/fields.js';
import type { Secret } from '../../base/secret.js';
import { bodyDetail, httpFailure, postForAnswer, type JsonAnswer } from '../post-json.js';
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
  digests: true,
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
    const prefix = `slack receiver "${this.name}"`;
    const url = this.receiver.webhookUrl;
    if (!url) throw new DeliveryError(`${prefix} has no webhookUrl`, 'disabled', false);
    const message = alerts.length === 1 ? slackMessage(alerts[0] as AlertMessage) : slackGroupMessage(alerts);
    const res = await postForAnswer(url.reveal(), JSON.stringify(message), { prefix, timeoutMs: this.receiver.timeout, signal });
    const error = classify(prefix, res);
    if (error) throw error;
  }
}

/** Slack answers `ok`, or a status with a short error code such as `channel_not_found`. */
function classify(prefix: string, res: JsonAnswer): DeliveryError | undefined {
  const { status } = res;
  if (status >= 200 && status < 300) return undefined;
  // Anything but a short code (a proxy's page, a body echoing the request) may carry the
  // webhook URL: not shown.
  const detail = bodyDetail(res.text);
  const permanent = PERMANENT.get(status);
  if (permanent) return new DeliveryError(`${prefix}: HTTP ${status}: ${permanent}${detail}`, `http_${status}`, false);
  return httpFailure(prefix, res, detail);
}
