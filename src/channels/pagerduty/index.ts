import { formatDuration } from '../../base/duration.js';
import { z } from 'zod';
import { linkedSignal } from '../../base/abort.js';
import { durationMs, httpUrl, secretString } from '../../base/fields.js';
import { scrub, type Secret } from '../../base/secret.js';
import { bodyDetail, httpFailure, jsonOf, postForAnswer, type JsonAnswer } from '../post-json.js';
import { oneLine } from '../text.js';
import { DeliveryError, type AlertMessage, type Channel, type Notifier, type ReceiverBase } from '../types.js';
import { dedupKey, eventBody, pagerDutyEvent } from './event.js';

export interface PagerDutyReceiver extends ReceiverBase {
  type: 'pagerduty';
  routingKey?: Secret | undefined;
  apiUrl: string;
  timeout: number;
  minInterval: number;
}

/** The Events API's error body: `{status, message, errors: [..]}`. */
const errorSchema = z.looseObject({ status: z.string().optional(), message: z.string().optional(), errors: z.array(z.unknown()).optional() });

/** Events this notifier remembers as accepted, so a retried group does not send them again. */
const REMEMBERED = 10_000;

export const pagerdutyChannel: Channel<PagerDutyReceiver> = {
  type: 'pagerduty',
  schema: z.strictObject({
    /** The service's Events API v2 integration key (32 characters). */
    routingKey: secretString.optional(),
    routingKeyFile: z.string().min(1).optional(),
    /** https://events.eu.pagerduty.com for a PagerDuty account in the EU service region. */
    apiUrl: httpUrl.default('https://events.pagerduty.com'),
    /** One deadline for all the events of a message (one per alert). */
    timeout: durationMs.default(10_000),
    minInterval: durationMs.default(0),
  }),
  disabledReason: (r) => (r.routingKey ? undefined : 'routingKey is empty'),
  digests: false,
  secretFields: [{ path: [], key: 'routingKey', url: false }],
  create: (r) => new PagerDutyNotifier(r),
};

class PagerDutyNotifier implements Notifier {
  readonly type = 'pagerduty';
  /** An event sent twice is one incident: its dedup_key. */
  readonly idempotent = true;
  readonly name: string;
  readonly minIntervalMs: number;
  readonly timeoutMs: number;
  /** `alertId/status` of notifications accepted by PagerDuty, oldest first. */
  readonly #accepted = new Set<string>();

  constructor(private readonly receiver: PagerDutyReceiver) {
    this.name = receiver.name;
    this.minIntervalMs = receiver.minInterval;
    this.timeoutMs = receiver.timeout;
  }

  /**
   * The Events API takes one event per request: a group of alerts is one request per alert,
   * in order, within one deadline (`timeout`), so one send() is still one attempt that
   * either delivers the group or fails. A failure part-way fails the group, which delivery
   * retries whole; the events this notifier saw accepted are skipped then. Sending one again
   * (after a restart) is harmless: a trigger with the dedup_key of an open incident is
   * added to it, a resolve of a resolved one does nothing, and only the last event of each
   * incident in a group is sent, so a trigger is never sent again after its own resolve.
   */
  async send(alerts: readonly AlertMessage[], signal: AbortSignal): Promise<void> {
    const prefix = `pagerduty receiver "${this.name}"`;
    const key = this.receiver.routingKey;
    if (!key) throw new DeliveryError(`${prefix} has no routingKey`, 'disabled', false);
    const url = `${this.receiver.apiUrl.replace(/\/+$/, '')}/v2/enqueue`;
    const deadline = linkedSignal(signal, this.receiver.timeout);
    const keys = alerts.map(dedupKey);
    try {
      for (const [i, a] of alerts.entries()) {
        const id = `${a.alertId}/${a.status}`;
        // Only the last event of an incident in the group: a trigger resolved before it was sent pages no one.
        if (keys.indexOf(keys[i] as string, i + 1) !== -1) continue;
        if (a.alertId > 0 && this.#accepted.has(id)) continue;
        const body = eventBody(pagerDutyEvent(a, key.reveal()));
        const which = alerts.length > 1 ? ` (event ${i + 1} of ${alerts.length})` : '';
        let res: JsonAnswer;
        try {
          res = await postForAnswer(url, body, { prefix: `${prefix}${which}`, timeoutMs: this.receiver.timeout, signal: deadline.signal });
        } catch (err) {
          if (deadline.timedOut) throw new DeliveryError(`${prefix}${which}: no answer within ${formatDuration(this.receiver.timeout)}`, 'timeout', true);
          throw err;
        }
        const error = classify(`${prefix}${which}`, res, key);
        if (error) throw error;
        if (a.alertId > 0) this.#remember(id);
      }
    } finally {
      deadline.dispose();
    }
  }

  #remember(id: string): void {
    this.#accepted.add(id);
    if (this.#accepted.size > REMEMBERED) this.#accepted.delete(this.#accepted.values().next().value as string);
  }
}

/**
 * The Events API's answer, classified: 202 is accepted; 429 (too many events for the
 * routing key) and 5xx are retried; 400 (an invalid event, a wrong routing key) and other
 * 4xx are permanent. PagerDuty's message and first error are shown, the key scrubbed.
 */
export function classify(prefix: string, res: JsonAnswer, key: Secret): DeliveryError | undefined {
  if (res.status >= 200 && res.status < 300) return undefined;
  const parsed = errorSchema.safeParse(jsonOf(res.text));
  const body = parsed.success ? parsed.data : undefined;
  let detail = bodyDetail(res.text);
  if (body?.message !== undefined) {
    const first = body.errors?.find((e): e is string => typeof e === 'string');
    // Scrubbed before it is cut: a cut could leave part of the key that scrub no longer knows.
    const clean = (text: string) => oneLine(scrub(text, [key]));
    detail = `: ${clean(body.message).slice(0, 120)}${first ? `: ${clean(first).slice(0, 160)}` : ''}`;
  }
  return httpFailure(prefix, res, detail);
}
