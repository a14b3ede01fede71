import { z } from 'zod';
import { systemClock, type Clock } from '../../base/clock.js';
import { durationMs, secretUrl } from '../../base/fields.js';
import { scrub, type Secret } from '../../base/secret.js';
import { bodyDetail, httpFailure, jsonOf, postForAnswer, type JsonAnswer } from '../post-json.js';
import { oneLine } from '../text.js';
import { DeliveryError, type AlertMessage, type Channel, type ChannelContext, type Notifier, type ReceiverBase } from '../types.js';
import { discordPayload } from './message.js';

export interface DiscordReceiver extends ReceiverBase {
  type: 'discord';
  webhookUrl?: Secret | undefined;
  timeout: number;
  minInterval: number;
}

/** Discord's error body: `{message, code}`, `errors` for an invalid form, `retry_after` (seconds) on a 429. */
const errorSchema = z.looseObject({
  message: z.string().optional(),
  code: z.number().optional(),
  errors: z.unknown().optional(),
  retry_after: z.number().optional(),
});

export const discordChannel: Channel<DiscordReceiver> = {
  type: 'discord',
  schema: z.strictObject({
    /** Channel settings → Integrations → Webhooks: `https://discord.com/api/webhooks/ID/TOKEN`. */
    webhookUrl: secretUrl.optional(),
    webhookUrlFile: z.string().min(1).optional(),
    timeout: durationMs.default(10_000),
    /** Discord allows a channel's webhooks about 30 messages a minute. */
    minInterval: durationMs.default(2_000),
  }),
  disabledReason: (r) => (r.webhookUrl ? undefined : 'webhookUrl is empty'),
  digests: true,
  secretFields: [{ path: [], key: 'webhookUrl', url: true }],
  create: (r) => new DiscordNotifier(r),
};

class DiscordNotifier implements Notifier {
  readonly type = 'discord';
  readonly name: string;
  readonly minIntervalMs: number;
  readonly timeoutMs: number;
  /** When the webhook's rate-limit bucket refills, after an answer said it is empty (on the steady clock). */
  #bucketResetAt = 0;
  #clock: Clock = systemClock;

  constructor(private readonly receiver: DiscordReceiver) {
    this.name = receiver.name;
    this.minIntervalMs = receiver.minInterval;
    this.timeoutMs = receiver.timeout;
  }

  start(ctx: ChannelContext): void {
    this.#clock = ctx.clock;
  }

  async send(alerts: readonly AlertMessage[], signal: AbortSignal): Promise<void> {
    const prefix = `discord receiver "${this.name}"`;
    const url = this.receiver.webhookUrl;
    if (!url) throw new DeliveryError(`${prefix} has no webhookUrl`, 'disabled', false);
    // The last answer said the bucket is empty: wait for it (within half the deadline)
    // rather than earn a 429; longer waits are left to delivery, through the 429.
    const wait = this.#bucketResetAt - this.#clock.mono();
    if (wait > 0 && wait <= this.receiver.timeout / 2) await this.#clock.sleep(wait, signal).catch(() => undefined);
    const res = await postForAnswer(url.reveal(), JSON.stringify(discordPayload(alerts)), { prefix, timeoutMs: this.receiver.timeout, signal });
    this.#bucketResetAt = res.headers.get('x-ratelimit-remaining') === '0' ? this.#clock.mono() + (resetAfterMs(res) ?? 0) : 0;
    const error = classify(prefix, res, url);
    if (error) throw error;
  }
}

/** X-RateLimit-Reset-After: seconds, with a fraction. */
function resetAfterMs(res: JsonAnswer): number | undefined {
  const n = Number(res.headers.get('x-ratelimit-reset-after') ?? '');
  return Number.isFinite(n) && n > 0 ? Math.ceil(n * 1000) : undefined;
}

/**
 * Discord's answer, classified: 429 waits the body's `retry_after` (seconds, a float), else
 * X-RateLimit-Reset-After, else Retry-After; 5xx is retried; 400 (an invalid message),
 * 401, 403 and 404 (Unknown Webhook: deleted) are permanent. Discord's message and code are
 * shown, scrubbed of the webhook URL, and for an invalid form the first field it named.
 */
export function classify(prefix: string, res: JsonAnswer, url: Secret): DeliveryError | undefined {
  if (res.status >= 200 && res.status < 300) return undefined;
  const parsed = errorSchema.safeParse(jsonOf(res.text));
  const body = parsed.success ? parsed.data : undefined;
  let detail = bodyDetail(res.text);
  if (body?.message !== undefined) {
    // Scrubbed before it is cut: a cut could leave part of the URL that scrub no longer knows.
    const clean = (text: string) => oneLine(scrub(text, [url]));
    const field = firstFormError(body.errors, clean);
    detail = `: ${clean(body.message).slice(0, 120)}${body.code === undefined ? '' : ` (code ${body.code})`}${field ? `: ${field}` : ''}`;
  }
  const retryAfter = body?.retry_after;
  return httpFailure(prefix, res, detail, retryAfter !== undefined && retryAfter > 0 ? Math.ceil(retryAfter * 1000) : resetAfterMs(res));
}

/** `embeds.0.description: Must be 4096 or fewer in length.` from Discord's nested `errors`. */
function firstFormError(errors: unknown, clean: (text: string) => string, path: string[] = []): string | undefined {
  if (typeof errors !== 'object' || errors === null) return undefined;
  const list = (errors as { _errors?: Array<{ message?: unknown }> })._errors;
  if (Array.isArray(list) && typeof list[0]?.message === 'string') return `${clean(path.join('.'))}: ${clean(list[0].message).slice(0, 120)}`;
  for (const [key, value] of Object.entries(errors)) {
    if (key === '_errors') continue;
    const found = firstFormError(value, clean, [...path, key.slice(0, 40)]);
    if (found) return found;
  }
  return undefined;
}

