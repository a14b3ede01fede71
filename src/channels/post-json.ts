import { formatDuration } from '../base/duration.js';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { linkedSignal } from '../base/abort.js';
import { systemClock } from '../base/clock.js';
import { parseRetryAfter, retryableStatus } from '../base/retry.js';
import { VERSION } from '../base/version.js';
import { DeliveryError } from './types.js';

/** An HTTP answer as a channel classifies it: the start of the body (MAX_ANSWER_BYTES). */
export interface JsonAnswer {
  status: number;
  headers: Headers;
  text: string;
}

interface PostOptions {
  prefix: string;
  timeoutMs: number;
  signal: AbortSignal;
  headers?: Record<string, string>;
}

/**
 * Of a provider's answer only this much is read: any provider's ok or error JSON fits many
 * times over, and a broken or hostile one cannot make us hold 400 MB.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** Added to an error when the request had left in full: the receiver may have it. */
const SENT = ' after the request was sent (it may have been delivered)';

/**
 * One JSON POST for a channel: a deadline, no redirects, and the answer classified as
 * delivered, retryable (429 with Retry-After, 408, 5xx, network, timeout) or permanent.
 * `prefix` names the receiver in errors; the URL never appears in them.
 */
export async function postJson(url: string, body: string, o: PostOptions): Promise<JsonAnswer> {
  const res = await postForAnswer(url, body, o);
  if (res.status >= 200 && res.status < 300) return res;
  throw httpFailure(o.prefix, res, bodyDetail(res.text));
}

/**
 * A provider's failing answer, the one way every channel reports it: `HTTP <status><detail>`,
 * retried for 408, 429 and 5xx; a 429 waits what the provider asked in its body
 * (`providerWaitMs`), else its Retry-After. `detail` must already be scrubbed.
 */
export function httpFailure(prefix: string, res: { status: number; headers: Headers }, detail: string, providerWaitMs?: number): DeliveryError {
  // A provider's date is the real world's: read against the host's wall.
  const wait = res.status === 429 ? (providerWaitMs ?? parseRetryAfter(res.headers.get('retry-after'), systemClock.now())) : undefined;
  return new DeliveryError(`${prefix}: HTTP ${res.status}${detail}`, `http_${res.status}`, retryableStatus(res.status), wait);
}

/**
 * The same POST, for a channel that reads the provider's error shape itself: any answer but
 * a redirect is returned; a network error or the deadline throws (retryable, URL not
 * named), saying whether the request had been sent: then the receiver may have taken it.
 * A redirect throws a permanent error: the URL is wrong, and following it would send the
 * message (and a URL's secret) somewhere else.
 */
export async function postForAnswer(url: string, body: string, o: PostOptions): Promise<JsonAnswer> {
  const attempt = linkedSignal(o.signal, o.timeoutMs);
  let sent = false;
  let res: JsonAnswer;
  try {
    const headers = { 'content-type': 'application/json', 'user-agent': `avawatch/${VERSION}`, ...o.headers, 'content-length': String(Buffer.byteLength(body)) };
    res = await exchange(new URL(url), body, headers, attempt.signal, () => (sent = true));
  } catch (err) {
    const after = sent ? SENT : '';
    if (attempt.timedOut) throw new DeliveryError(`${o.prefix}: no answer within ${formatDuration(o.timeoutMs)}${after}`, 'timeout', true, undefined, sent);
    // The code only: an error's message may quote the URL.
    const code = (err as { code?: unknown }).code;
    throw new DeliveryError(`${o.prefix}: ${typeof code === 'string' ? code : 'network error'}${after}`, 'network', true, undefined, sent);
  } finally {
    attempt.dispose();
  }
  if (res.status >= 300 && res.status < 400) throw redirectError(o.prefix, url, res);
  return res;
}

/**
 * A fresh connection per post (no keep-alive: a post written to a connection the server
 * had already closed would look sent). `onSent` runs once the whole request was handed to
 * the connection, never before it connected.
 */
function exchange(url: URL, body: string, headers: Record<string, string>, signal: AbortSignal, onSent: () => void): Promise<JsonAnswer> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: 'POST', headers, agent: false, signal });
    req.once('finish', onSent);
    req.once('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (): void => resolve({ status: res.statusCode ?? 0, headers: toHeaders(res.headers), text: Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8') });
      res.on('data', (chunk: Buffer) => {
        if (size >= MAX_ANSWER_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size < MAX_ANSWER_BYTES) return;
        // Enough: the rest is never read, and the connection goes.
        done();
        res.destroy();
      });
      res.once('end', done);
      res.once('error', reject);
      res.once('close', () => {
        if (!res.complete && size < MAX_ANSWER_BYTES) reject(Object.assign(new Error('answer cut short'), { code: 'ECONNRESET' }));
      });
    });
    req.end(body);
  });
}

function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      try {
        headers.append(name, one);
      } catch {
        // A header fetch's rules refuse is one no classification reads.
      }
    }
  }
  return headers;
}

/**
 * `HTTP 301 to hooks.example.com`: where to, by host only. The Location's path and query
 * (a moved webhook's new secret, the old one echoed back) are never shown.
 */
function redirectError(prefix: string, url: string, res: JsonAnswer): DeliveryError {
  let where = 'without a Location';
  const location = res.headers.get('location');
  if (location !== null) {
    try {
      const from = new URL(url);
      const to = new URL(location, from);
      where = to.host === from.host ? (to.protocol === from.protocol ? 'to another path on the same host' : `to ${to.protocol.replace(/:$/, '')} on the same host`) : `to ${to.host}`;
    } catch {
      where = 'to an unreadable Location';
    }
  }
  return new DeliveryError(`${prefix}: the receiver's URL redirects (HTTP ${res.status} ${where}): a configuration error; fix the URL`, 'redirect', false);
}

/**
 * What an error message may say about a receiver's answer body: a short error code such
 * as Slack's `channel_not_found` is shown, ` (channel_not_found)`; any other body (a
 * proxy's page, a framework's `Cannot POST /the/secret/path`) may quote the URL or a
 * token, so it is never stored or logged: ` (body not shown)`. An empty body: nothing.
 */
export function bodyDetail(body: string | undefined): string {
  const text = (body ?? '').trim();
  if (text === '') return '';
  return /^[a-z0-9_]{1,60}$/.test(text) ? ` (${text})` : ' (body not shown)';
}

/** An answer's body as JSON, or undefined when it is not JSON (a proxy's page). */
export function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
