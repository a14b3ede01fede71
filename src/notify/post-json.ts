import { linkedSignal } from '../abort.js';
import { parseRetryAfter, retryableStatus } from '../retry.js';
import { VERSION } from '../version.js';
import { DeliveryError } from './types.js';

/** An HTTP answer as a channel classifies it: the body read in full (within the deadline). */
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
 * One JSON POST for a channel: a deadline, no redirects, and the answer classified as
 * delivered, retryable (429 with Retry-After, 408, 5xx, network, timeout) or permanent.
 * `prefix` names the receiver in errors; the URL never appears in them.
 */
export async function postJson(url: string, body: string, o: PostOptions): Promise<void> {
  const res = await postForAnswer(url, body, o);
  if (res.status >= 200 && res.status < 300) return;
  const retryable = retryableStatus(res.status);
  const wait = res.status === 429 ? parseRetryAfter(res.headers.get('retry-after')) : undefined;
  throw new DeliveryError(`${o.prefix}: HTTP ${res.status}${bodyDetail(res.text)}`, `http_${res.status}`, retryable, wait);
}

/**
 * The same POST, for a channel that reads the provider's error shape itself: any answer is
 * returned; only a network error or the deadline throws (retryable, URL not named).
 */
export async function postForAnswer(url: string, body: string, o: PostOptions): Promise<JsonAnswer> {
  const attempt = linkedSignal(o.signal, o.timeoutMs);
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': `avawatch/${VERSION}`, ...o.headers },
      body,
      signal: attempt.signal,
      redirect: 'error',
    });
    return { status: res.status, headers: res.headers, text: await res.text() };
  } catch (err) {
    if (attempt.timedOut) throw new DeliveryError(`${o.prefix}: no answer within ${o.timeoutMs} ms`, 'timeout', true);
    throw new DeliveryError(`${o.prefix}: ${(err as { cause?: { code?: string } }).cause?.code ?? 'network error'}`, 'network', true);
  } finally {
    attempt.dispose();
  }
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
