import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

// Stand-ins on loopback for the Telegram Bot API, a Discord webhook and PagerDuty's Events
// API v2. Each enforces the provider's documented limits and answers with its documented
// error shapes, so a message they accept is one the provider would accept.

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Received<B> {
  path: string;
  body: B;
  headers: IncomingHttpHeaders;
  at: number;
  /** What the stand-in answered. */
  status: number;
  answer: unknown;
}

export interface StandIn<B> {
  url: string;
  /** Every request, accepted or not, in order. */
  received: Array<Received<B>>;
  /** The accepted ones. */
  accepted(): Array<Received<B>>;
  /** Requests refused for breaking a limit or a format rule (a test expects none). */
  invalid(): Array<Received<B>>;
  /** Answers the next requests with these (then as usual again). */
  failNext(...answers: Answer[]): void;
  /** Answers every request so (the function may read the request) until cleared with undefined. */
  failAll(answer: ((path: string) => Answer) | undefined): void;
  waitFor(count: number, timeoutMs?: number): Promise<Array<Received<B>>>;
  close(): Promise<void>;
}

/** A JSON stand-in: `check` says what the provider would answer a request that was not planned to fail. */
async function standIn<B>(check: (path: string, body: B, raw: string) => Answer): Promise<StandIn<B>> {
  const received: Array<Received<B>> = [];
  const queue: Answer[] = [];
  let always: ((path: string) => Answer) | undefined;
  const invalid = new Set<Received<B>>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: B;
      try {
        body = JSON.parse(raw) as B;
      } catch {
        body = undefined as B;
      }
      const path = req.url ?? '';
      const planned = always?.(path) ?? queue.shift();
      const answer = planned ?? check(path, body, raw);
      const entry = { path, body, headers: req.headers, at: Date.now(), status: answer.status, answer: answer.body };
      received.push(entry);
      if (!planned && answer.status === 400) invalid.add(entry);
      const text = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    accepted: () => received.filter((r) => r.status >= 200 && r.status < 300),
    invalid: () => received.filter((r) => invalid.has(r)),
    failNext: (...answers) => queue.push(...answers),
    failAll: (fn) => {
      always = fn;
    },
    async waitFor(count, timeoutMs = 15_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const got = received.filter((r) => r.status >= 200 && r.status < 300);
        if (got.length >= count) return got;
        if (Date.now() > end) throw new Error(`expected ${count} accepted request(s), got ${got.length} within ${timeoutMs} ms (${received.length} in all)`);
        // real wait: a poll step; on fake time a fake timer, which the test's settle() pumps.
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// --- Telegram ---------------------------------------------------------------------------

export const TELEGRAM_TOKEN = '7012345678:AAHk9TgSecretBotToken-x_YZ0123456789';
export const TELEGRAM_CHAT = '-1001234567890';

export interface TelegramBody {
  chat_id: string | number;
  text: string;
  parse_mode?: string;
}

const TELEGRAM_TAGS = new Set(['b', 'strong', 'i', 'em', 'u', 'ins', 's', 'strike', 'del', 'code', 'pre', 'tg-spoiler', 'blockquote']);

/**
 * A message's text as Telegram reads it in HTML parse mode: tags it supports are removed,
 * the four named entities and numeric ones decoded; any other `<`, `>` or `&` is an error,
 * as Telegram answers it ("can't parse entities").
 */
export function telegramPlain(html: string): { text: string } | { error: string } {
  let out = '';
  const open: string[] = [];
  for (let i = 0; i < html.length; ) {
    const ch = html[i] as string;
    if (ch === '<') {
      const m = /^<(\/?)([a-z-]+)>/.exec(html.slice(i));
      if (!m || !TELEGRAM_TAGS.has(m[2]!)) return { error: `Bad Request: can't parse entities: Unsupported start tag "${/^<\/?([^\s>]*)/.exec(html.slice(i))?.[1] ?? ''}" at byte offset ${Buffer.byteLength(html.slice(0, i))}` };
      if (m[1]) {
        if (open.pop() !== m[2]) return { error: `Bad Request: can't parse entities: Unmatched end tag at byte offset ${Buffer.byteLength(html.slice(0, i))}, expected "</${open.at(-1) ?? ''}>", found "</${m[2]}>"` };
      } else open.push(m[2]!);
      i += m[0].length;
    } else if (ch === '&') {
      const m = /^&(lt|gt|amp|quot|#\d+|#x[0-9a-f]+);/i.exec(html.slice(i));
      if (!m) return { error: `Bad Request: can't parse entities: Character entity expected at byte offset ${Buffer.byteLength(html.slice(0, i))}` };
      const name = m[1]!.toLowerCase();
      out += name === 'lt' ? '<' : name === 'gt' ? '>' : name === 'amp' ? '&' : name === 'quot' ? '"' : String.fromCodePoint(name.startsWith('#x') ? parseInt(name.slice(2), 16) : Number(name.slice(1)));
      i += m[0].length;
    } else if (ch === '>') {
      return { error: `Bad Request: can't parse entities: Unexpected end tag at byte offset ${Buffer.byteLength(html.slice(0, i))}` };
    } else {
      out += ch;
      i++;
    }
  }
  if (open.length > 0) return { error: `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "${open.at(-1)}"` };
  return { text: out };
}

/** The Bot API's sendMessage for one bot and chat: 4,096 characters after entity parsing. */
export async function startTelegram(o: { token?: string; chat?: string } = {}) {
  const token = o.token ?? TELEGRAM_TOKEN;
  const chat = o.chat ?? TELEGRAM_CHAT;
  const error = (code: number, description: string, parameters?: object): Answer => ({ status: code, body: { ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) } });
  const s = await standIn<TelegramBody>((path, body) => {
    const m = /^\/bot([^/]+)\/sendMessage$/.exec(path);
    if (!m) return error(404, 'Not Found');
    if (decodeURIComponent(m[1]!) !== token) return error(401, 'Unauthorized');
    if (!body || typeof body.text !== 'string') return error(400, 'Bad Request: message text is empty');
    if (String(body.chat_id) !== chat) return error(400, 'Bad Request: chat not found');
    const parsed = body.parse_mode === 'HTML' ? telegramPlain(body.text) : { text: body.text };
    if ('error' in parsed) return error(400, parsed.error);
    if (parsed.text.trim() === '') return error(400, 'Bad Request: message text is empty');
    if (parsed.text.length > 4096) return error(400, 'Bad Request: message is too long');
    return { status: 200, body: { ok: true, result: { message_id: 1, chat: { id: Number(chat) }, date: Math.floor(Date.now() / 1000), text: parsed.text } } };
  });
  return {
    ...s,
    apiUrl: s.url,
    /** Telegram's 429: `parameters.retry_after` seconds. */
    tooMany: (seconds: number): Answer => error(429, `Too Many Requests: retry after ${seconds}`, { retry_after: seconds }),
    error,
  };
}

// --- Discord ----------------------------------------------------------------------------

export const DISCORD_PATH = '/api/webhooks/1234567890123456789/DiScOrDwEbHoOkToKeN_aBcDeF-0123456789xyz';

export interface DiscordBody {
  content?: string;
  embeds?: Array<{ title?: string; description?: string; footer?: { text?: string }; author?: { name?: string }; fields?: Array<{ name?: string; value?: string }> }>;
  allowed_mentions?: { parse?: string[] };
}

/** Discord's "Invalid Form Body": the field path and its error, nested as Discord nests them. */
function formError(path: Array<string | number>, code: string, message: string): Answer {
  let errors: Record<string, unknown> = { _errors: [{ code, message }] };
  for (const key of [...path].reverse()) errors = { [String(key)]: errors };
  return { status: 400, body: { code: 50035, errors, message: 'Invalid Form Body' } };
}

/** The limits Discord checks on a webhook's message, first broken one answered. */
export function discordCheck(body: DiscordBody): Answer | undefined {
  const max = (path: Array<string | number>, text: string | undefined, limit: number, required = false): Answer | undefined => {
    if (required && (text === undefined || text.length === 0)) return formError(path, 'BASE_TYPE_REQUIRED', 'This field is required');
    if (text !== undefined && text.length > limit) return formError(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${limit} or fewer in length.`);
    return undefined;
  };
  const embeds = body.embeds ?? [];
  if ((body.content ?? '') === '' && embeds.length === 0) return { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } };
  const content = max(['content'], body.content, 2000);
  if (content) return content;
  if (embeds.length > 10) return formError(['embeds'], 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.');
  let total = 0;
  for (const [i, e] of embeds.entries()) {
    const fields = e.fields ?? [];
    const found =
      max(['embeds', i, 'title'], e.title, 256) ??
      max(['embeds', i, 'description'], e.description, 4096) ??
      max(['embeds', i, 'footer', 'text'], e.footer?.text, 2048) ??
      (fields.length > 25 ? formError(['embeds', i, 'fields'], 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.') : undefined) ??
      fields.map((f, j) => max(['embeds', i, 'fields', j, 'name'], f.name, 256, true) ?? max(['embeds', i, 'fields', j, 'value'], f.value, 1024, true)).find((a) => a !== undefined);
    if (found) return found;
    total += (e.title?.length ?? 0) + (e.description?.length ?? 0) + (e.footer?.text?.length ?? 0) + (e.author?.name?.length ?? 0) + fields.reduce((n, f) => n + (f.name?.length ?? 0) + (f.value?.length ?? 0), 0);
  }
  if (total > 6000) return formError(['embeds'], 'MAX_EMBED_SIZE_EXCEEDED', 'Embed size exceeds maximum size of 6000');
  return undefined;
}

/** An incoming webhook: 204 for a message within the limits, Invalid Form Body otherwise. */
export async function startDiscord() {
  const s = await standIn<DiscordBody>((path, body) => {
    if (path.split('?')[0] !== DISCORD_PATH) return { status: 404, body: { message: 'Unknown Webhook', code: 10015 } };
    if (!body) return { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } };
    return discordCheck(body) ?? { status: 204, headers: { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '4', 'x-ratelimit-reset-after': '0.4' } };
  });
  return {
    ...s,
    webhookUrl: `${s.url}${DISCORD_PATH}`,
    /** Discord's 429: `retry_after` seconds (a float) in the body, and the rate-limit headers. */
    tooMany: (seconds: number): Answer => ({
      status: 429,
      body: { message: 'You are being rate limited.', retry_after: seconds, global: false },
      headers: {
        'retry-after': String(Math.ceil(seconds)),
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Date.now() / 1000 + seconds),
        'x-ratelimit-reset-after': seconds.toFixed(3),
        'x-ratelimit-bucket': 'abcd1234',
        'x-ratelimit-scope': 'shared',
      },
    }),
  };
}

// --- PagerDuty --------------------------------------------------------------------------

export const PAGERDUTY_KEY = 'R0uT1nGkEy0123456789abcdefABCDEF';

export interface PagerDutyBody {
  routing_key?: string;
  event_action?: string;
  dedup_key?: string;
  payload?: { summary?: string; source?: string; severity?: string; timestamp?: string; custom_details?: Record<string, unknown> };
}

/** Events API v2: one event a request, 202 with the dedup_key; incidents opened and resolved by key. */
export async function startPagerDuty(o: { key?: string } = {}) {
  const key = o.key ?? PAGERDUTY_KEY;
  const invalid = (...errors: string[]): Answer => ({ status: 400, body: { status: 'invalid event', message: 'Event object is invalid', errors } });
  /** Open incidents by dedup_key, and how many were ever opened. */
  const open = new Map<string, PagerDutyBody>();
  let opened = 0;
  let events = 0;
  const s: StandIn<PagerDutyBody> = await standIn<PagerDutyBody>((path, body, raw) => {
    if (path !== '/v2/enqueue') return { status: 404, body: { status: 'not found', message: 'Not Found' } };
    if (Buffer.byteLength(raw) > 512 * 1024) return { status: 413, body: 'Request Entity Too Large' };
    if (!body) return invalid('Invalid JSON');
    if (body.routing_key?.length !== 32) return invalid("Length of 'routing_key' is incorrect (should be 32 characters)");
    if (body.routing_key !== key) return invalid('Invalid routing key');
    if (!['trigger', 'acknowledge', 'resolve'].includes(body.event_action ?? '')) return invalid("'event_action' is invalid (must be one of the following: 'trigger', 'acknowledge' or 'resolve')");
    if ((body.dedup_key?.length ?? 0) > 255) return invalid("'dedup_key' is too long (should be at most 255 characters)");
    if (body.event_action === 'trigger') {
      const p = body.payload;
      if (!p?.summary) return invalid("'payload.summary' is missing or blank");
      if (p.summary.length > 1024) return invalid("'payload.summary' is too long (should be at most 1024 characters)");
      if (!p.source) return invalid("'payload.source' is missing or blank");
      if (!['critical', 'error', 'warning', 'info'].includes(p.severity ?? '')) return invalid("'payload.severity' is invalid (must be one of the following: 'critical', 'warning', 'error' or 'info')");
    } else if (!body.dedup_key) return invalid("'dedup_key' is required for 'acknowledge' and 'resolve' events");
    const dedup = body.dedup_key ?? `generated-${++events}`;
    if (body.event_action === 'trigger' && !open.has(dedup)) {
      open.set(dedup, body);
      opened++;
    }
    if (body.event_action === 'resolve') open.delete(dedup);
    return { status: 202, body: { status: 'success', message: 'Event processed', dedup_key: dedup } };
  });
  return {
    ...s,
    apiUrl: s.url,
    /** Incidents open now, by dedup_key. */
    open,
    get opened() {
      return opened;
    },
    tooMany: (): Answer => ({ status: 429, body: { status: 'throttle event', message: 'Requests for this service are arriving too quickly.  Please retry later.' } }),
    /** PagerDuty's 400 for an event it refuses. */
    invalidEvent: invalid,
  };
}
