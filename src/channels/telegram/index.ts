import { z } from 'zod';
import { durationMs, httpUrl, secretString } from '../../base/fields.js';
import { scrub, type Secret } from '../../base/secret.js';
import { bodyDetail, httpFailure, jsonOf, postForAnswer, type JsonAnswer } from '../post-json.js';
import { oneLine } from '../text.js';
import { DeliveryError, type AlertMessage, type Channel, type Notifier, type ReceiverBase } from '../types.js';
import { telegramText } from './message.js';

export interface TelegramReceiver extends ReceiverBase {
  type: 'telegram';
  botToken?: Secret | undefined;
  chatId: string;
  apiUrl: string;
  timeout: number;
  minInterval: number;
}

/** The Bot API's answer: `{ok, result}` or `{ok: false, error_code, description, parameters}`. */
const answerSchema = z.looseObject({
  ok: z.boolean(),
  error_code: z.number().optional(),
  description: z.string().optional(),
  parameters: z.looseObject({ retry_after: z.number().optional(), migrate_to_chat_id: z.number().optional() }).optional(),
});

export const telegramChannel: Channel<TelegramReceiver> = {
  type: 'telegram',
  schema: z.strictObject({
    /** From @BotFather: `123456789:AA…`. It is part of every request's path. */
    botToken: secretString.optional(),
    botTokenFile: z.string().min(1).optional(),
    /** A user, group or channel id (`-100…` for a supergroup or channel), or `@channelname`. */
    chatId: z.union([z.number().int(), z.string()]).transform(String),
    /** The Bot API server (a self-hosted telegram-bot-api, or a test's stand-in). */
    apiUrl: httpUrl.default('https://api.telegram.org'),
    timeout: durationMs.default(10_000),
    /** Telegram allows a bot about 20 messages a minute in a group. */
    minInterval: durationMs.default(3_000),
  }),
  disabledReason: (r) => (!r.botToken ? 'botToken is empty' : r.chatId.trim() === '' ? 'chatId is empty' : undefined),
  digests: true,
  secretFields: [{ path: [], key: 'botToken', url: false }],
  create: (r) => new TelegramNotifier(r),
};

class TelegramNotifier implements Notifier {
  readonly type = 'telegram';
  readonly name: string;
  readonly minIntervalMs: number;
  readonly timeoutMs: number;

  constructor(private readonly receiver: TelegramReceiver) {
    this.name = receiver.name;
    this.minIntervalMs = receiver.minInterval;
    this.timeoutMs = receiver.timeout;
  }

  async send(alerts: readonly AlertMessage[], signal: AbortSignal): Promise<void> {
    const prefix = `telegram receiver "${this.name}"`;
    const token = this.receiver.botToken;
    if (!token) throw new DeliveryError(`${prefix} has no botToken`, 'disabled', false);
    const body = JSON.stringify({
      chat_id: this.receiver.chatId.trim(),
      text: telegramText(alerts),
      parse_mode: 'HTML',
      // A URL in chain text never gets a preview.
      link_preview_options: { is_disabled: true },
    });
    const url = `${this.receiver.apiUrl.replace(/\/+$/, '')}/bot${token.reveal()}/sendMessage`;
    const res = await postForAnswer(url, body, { prefix, timeoutMs: this.receiver.timeout, signal });
    const error = classify(prefix, res, token);
    if (error) throw error;
  }
}

/**
 * The Bot API's error, classified: 429 waits `parameters.retry_after` seconds, 5xx is
 * retried, the rest (400 chat not found, 401 bad token, 403 bot blocked or kicked) is
 * permanent. Telegram's `description` is shown, on one line and with the token scrubbed:
 * the token is in the request's path, which an error page may quote.
 */
export function classify(prefix: string, res: JsonAnswer, token: Secret): DeliveryError | undefined {
  const parsed = answerSchema.safeParse(jsonOf(res.text));
  const answer = parsed.success ? parsed.data : undefined;
  const ok = res.status >= 200 && res.status < 300;
  if (ok && answer?.ok !== false) return undefined;
  const status = ok ? (answer?.error_code ?? 400) : res.status;
  const description = answer?.description === undefined ? undefined : scrub(oneLine(answer.description), [token]).slice(0, 200);
  let detail = description === undefined ? bodyDetail(res.text) : `: ${description}`;
  const migrated = answer?.parameters?.migrate_to_chat_id;
  if (migrated !== undefined) detail += ` (the group is now a supergroup: set chatId to ${migrated})`;
  const retryAfter = answer?.parameters?.retry_after;
  return httpFailure(prefix, { status, headers: res.headers }, detail, retryAfter !== undefined && retryAfter > 0 ? retryAfter * 1000 : undefined);
}

