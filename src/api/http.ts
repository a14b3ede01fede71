import { formatDuration } from '../base/duration.js';
import type { Dispatcher, request as undiciRequest } from 'undici';
import { undici } from './undici.js';
import { linkedSignal } from '../base/abort.js';
import type { Clock } from '../base/clock.js';
import { computeUnits } from './catalog.js';
import { requestContext } from './context.js';
import { ApiError, networkErrorText, networkWords } from './errors.js';
import { parseRetryAfter, retryableStatus } from '../base/retry.js';
import type { Cancel } from '../base/timers.js';
import { BudgetExhaustedError, RateLimitedError, type Limiter, type Reservation } from './limiter.js';
import { errorBody } from './schemas.js';

export interface HttpClientOptions {
  /** `data` or `metrics`: the api label and the start of every error message. */
  api: string;
  baseUrl: string;
  /** Or the promise of one (an agent made once undici has loaded). */
  dispatcher: Dispatcher | Promise<Dispatcher>;
  headers: Record<string, string>;
  /** Whole-request deadline: headers and body together, so a trickled body cannot hang a rule. */
  timeoutMs: number;
  maxResponseBytes: number;
  retries: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
  /** A Retry-After longer than this fails the call instead of stalling the rule. */
  maxRetryAfterMs: number;
  onResponse?: (endpoint: string, code: string) => void;
  /** Compute-unit budget of this API: every attempt waits for its share. */
  limiter?: Limiter;
  /** Identical GETs within this window are made once (default 0: never shared). */
  dedupeWindowMs?: number;
  /** Called when a GET was answered by a recent or in-flight identical one. */
  onDedupe?: (endpoint: string) => void;
  /** The clock answers are aged and retries wait by (the App's: simulated in rule tests). */
  clock: Clock;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<unknown>;
}

export interface ApiRequest {
  /** Path template, e.g. `/v1/networks/{network}/validators/{nodeId}`: a bounded metric label. */
  endpoint: string;
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
  /** POST with this JSON body. A POST is retried only on 429: the service did not act on it. */
  body?: unknown;
  /**
   * A probe measures the service as it answers now: one attempt, never retried (a 503 then a
   * 201 would hide the failure) and never answered by another rule's identical call.
   */
  probe?: boolean;
  /** Called as each attempt is sent, past the budget's wait: a probe times the service alone. */
  onSent?: () => void;
}

const RETRYABLE_NETWORK = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

/** How much of an error body is read: enough for the service's message. */
const ERROR_BODY_BYTES = 64 * 1024;

interface Answer {
  json: unknown;
  text: string;
}

type Options = Required<Omit<HttpClientOptions, 'onResponse' | 'limiter' | 'onDedupe'>> & Pick<HttpClientOptions, 'onResponse' | 'limiter' | 'onDedupe'>;

interface Recent {
  /** When the answer arrived; undefined while in flight. */
  at: number | undefined;
  /** The body as received: compact to keep, and each rule parses its own copy. */
  answer: Promise<string>;
}

export class HttpClient {
  readonly #o: Options;
  readonly #recent = new Map<string, Recent>();
  #pruner: Cancel | undefined;

  constructor(options: HttpClientOptions) {
    this.#o = { random: Math.random, sleep: (ms, signal) => options.clock.sleep(ms, signal), dedupeWindowMs: 0, ...options };
  }

  /**
   * GET with retries: exponential backoff with full jitter; Retry-After is the least wait.
   * An identical GET in flight, or answered within the window (and within the asking
   * rule's own maxAge), answers this one too: rules watching the same node share a call.
   */
  async getJson(req: ApiRequest): Promise<unknown> {
    const window = Math.min(this.#o.dedupeWindowMs, requestContext.getStore()?.maxAgeMs ?? Infinity);
    if (req.body !== undefined || req.probe === true || window <= 0) return (await this.#withRetries(req)).json;
    const key = this.#url(req).href;
    // Aged on the steady clock: on the wall, a step back made every answer fresh for an hour.
    const now = this.#o.clock.mono();
    const hit = this.#recent.get(key);
    if (hit && (hit.at === undefined || now - hit.at <= window)) {
      this.#o.onDedupe?.(req.endpoint);
      try {
        return JSON.parse(await hit.answer) as unknown;
      } catch (err) {
        // The other rule gave up (aborted, perhaps while waiting to retry): ask for ourselves.
        const aborted = (err instanceof ApiError && err.details.code === 'aborted') || (err as { name?: string }).name === 'AbortError';
        if (aborted && !req.signal?.aborted) return (await this.#withRetries(req)).json;
        throw err;
      }
    }
    // Answers leave once their window is over: a cycle's worth must not wait for the next cycle.
    if (this.#pruner === undefined) {
      this.#pruner = this.#o.clock.setTimer(() => this.#prune(), this.#o.dedupeWindowMs + 100, { unref: true });
    }
    const call = this.#withRetries(req);
    const entry: Recent = { at: undefined, answer: call.then((r) => r.text) };
    entry.answer.catch(() => undefined);
    this.#recent.set(key, entry);
    try {
      const { json } = await call;
      entry.at = this.#o.clock.mono();
      return json;
    } catch (err) {
      this.#recent.delete(key);
      throw err;
    }
  }

  #prune(): void {
    this.#pruner = undefined;
    const now = this.#o.clock.mono();
    for (const [k, r] of this.#recent) {
      if (r.at !== undefined && now - r.at > this.#o.dedupeWindowMs) this.#recent.delete(k);
    }
    if (this.#recent.size > 0) {
      this.#pruner = this.#o.clock.setTimer(() => this.#prune(), this.#o.dedupeWindowMs + 100, { unref: true });
    }
  }

  async #withRetries(req: ApiRequest): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#attempt(req);
      } catch (err) {
        const error = err instanceof ApiError ? err : this.#wrap(req, err);
        const retryable = error.retryable && (req.body === undefined || error.details.status === 429);
        if (!retryable || attempt >= (req.probe === true ? 0 : this.#o.retries) || req.signal?.aborted) throw error;
        const ceiling = Math.min(this.#o.backoffMaxMs, this.#o.backoffInitialMs * 2 ** attempt);
        let wait = this.#o.random() * ceiling;
        const retryAfter = error.details.retryAfterMs;
        if (retryAfter !== undefined) {
          if (retryAfter > this.#o.maxRetryAfterMs) throw error;
          wait = Math.max(wait, retryAfter);
        }
        await this.#o.sleep(wait, req.signal);
      }
    }
  }

  #url(req: ApiRequest): URL {
    // Appended, not resolved: a dataUrl with a path (a proxy prefix) keeps it.
    const url = new URL(this.#o.baseUrl.replace(/\/+$/, '') + req.path);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  async #attempt(req: ApiRequest): Promise<Answer> {
    const url = this.#url(req);
    const { limiter } = this.#o;
    let reservation: Reservation | undefined;
    if (limiter) {
      const method = req.body === undefined ? 'GET' : 'POST';
      try {
        reservation = await limiter.acquire(computeUnits(method, req.path).cu, requestContext.getStore()?.severity, req.signal);
      } catch (err) {
        if (err instanceof BudgetExhaustedError) throw this.#error(req, err.message, { code: 'budget', retryable: false });
        if (err instanceof RateLimitedError) throw this.#error(req, err.message, { code: 'rate_limited', retryable: false });
        throw err;
      }
    }
    // undici and the agent load (at a process's first request) before the deadline starts: it times the exchange alone.
    const [{ request }, dispatcher] = await Promise.all([undici(), this.#o.dispatcher]);
    const deadline = linkedSignal(req.signal, this.#o.timeoutMs);
    // Compute units count once the service answered (its status line came back), not before.
    const sent = { answered: false };
    req.onSent?.();
    try {
      return await this.#exchange(req, url, { request, dispatcher, signal: deadline.signal }, sent);
    } catch (err) {
      if (deadline.timedOut && !(err instanceof ApiError)) {
        this.#o.onResponse?.(req.endpoint, 'timeout');
        throw this.#error(req, `no complete response within ${formatDuration(this.#o.timeoutMs)}`, { code: 'timeout', retryable: true });
      }
      throw err;
    } finally {
      deadline.dispose();
      if (limiter && reservation) limiter.settle(reservation, sent.answered);
    }
  }

  async #exchange(req: ApiRequest, url: URL, via: { request: typeof undiciRequest; dispatcher: Dispatcher; signal: AbortSignal }, sent: { answered: boolean }): Promise<Answer> {
    const post = req.body !== undefined;
    const { request, dispatcher, signal } = via;
    const res = await request(url, {
      method: post ? 'POST' : 'GET',
      dispatcher,
      headers: { accept: 'application/json', ...(post ? { 'content-type': 'application/json' } : {}), ...this.#o.headers },
      ...(post ? { body: JSON.stringify(req.body) } : {}),
      signal,
    });
    sent.answered = true;
    this.#o.limiter?.observe(res.headers, res.statusCode);
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    const text = await this.#readBody(req, res.body, ok);
    const code = String(res.statusCode);
    this.#o.onResponse?.(req.endpoint, code);
    if (ok) {
      try {
        return { json: JSON.parse(text) as unknown, text };
      } catch {
        throw this.#error(req, `HTTP ${res.statusCode} with a body that is not JSON`, { code, retryable: false });
      }
    }
    const { message: serviceMessage, serviceError } = parseServiceError(text);
    const retryable = retryableStatus(res.statusCode);
    const retryAfterMs = parseRetryAfter(res.headers['retry-after'], this.#o.clock.now());
    const reason = serviceMessage ? `: ${serviceMessage}` : '';
    return Promise.reject(
      this.#error(req, `HTTP ${res.statusCode}${reason}`, {
        code,
        status: res.statusCode,
        retryable,
        serviceError,
        ...(serviceMessage === undefined ? {} : { serviceMessage }),
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      }),
    );
  }

  /** A success body must fit maxResponseBytes; of an error body only the start is kept. */
  async #readBody(req: ApiRequest, body: Dispatcher.ResponseData['body'], strict: boolean): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (!strict && size > ERROR_BODY_BYTES) {
        body.destroy();
        break;
      }
      if (size > this.#o.maxResponseBytes) {
        body.destroy();
        this.#o.onResponse?.(req.endpoint, 'too_large');
        throw this.#error(req, `response larger than ${this.#o.maxResponseBytes} bytes`, {
          code: 'too_large',
          retryable: false,
        });
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  #wrap(req: ApiRequest, err: unknown): ApiError {
    if (req.signal?.aborted) {
      return this.#error(req, 'aborted', { code: 'aborted', retryable: false });
    }
    const cause = err as { code?: string; name?: string; cause?: { code?: string } };
    const netCode = cause.code ?? cause.cause?.code;
    if (netCode === 'UND_ERR_HEADERS_TIMEOUT' || netCode === 'UND_ERR_BODY_TIMEOUT' || netCode === 'UND_ERR_ABORTED') {
      this.#o.onResponse?.(req.endpoint, 'timeout');
      return this.#error(req, `no complete response within ${formatDuration(this.#o.timeoutMs)}`, { code: 'timeout', retryable: true });
    }
    this.#o.onResponse?.(req.endpoint, 'network_error');
    const words = networkWords(netCode);
    return this.#error(req, networkErrorText(netCode, err instanceof Error ? err.message : String(err)), {
      code: 'network_error',
      retryable: netCode === undefined || RETRYABLE_NETWORK.has(netCode),
      ...(words === undefined ? {} : { network: words }),
    });
  }

  #error(
    req: ApiRequest,
    what: string,
    details: Omit<ConstructorParameters<typeof ApiError>[1], 'api' | 'endpoint'>,
  ): ApiError {
    return new ApiError(`${this.#o.api} API ${req.body === undefined ? 'GET' : 'POST'} ${req.path}: ${what}`, {
      api: this.#o.api,
      endpoint: req.endpoint,
      ...details,
    });
  }
}

/**
 * The service's `message` (a string or an array of strings), and whether the body is the
 * service's own error shape rather than a proxy's page.
 */
export function parseServiceError(text: string): { message: string | undefined; serviceError: boolean } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const plain = text.replace(/\s+/g, ' ').trim().slice(0, 200);
    return { message: plain === '' ? undefined : plain, serviceError: false };
  }
  const parsed = errorBody.safeParse(json);
  if (!parsed.success) return { message: undefined, serviceError: false };
  const { message, error, statusCode } = parsed.data;
  const text_ = Array.isArray(message) ? message.join('; ') : (message ?? error);
  return { message: text_, serviceError: statusCode !== undefined || error !== undefined };
}
