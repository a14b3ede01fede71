import { linkedSignal } from '../abort.js';
import { parseRetryAfter } from '../api/http.js';
import { VERSION } from '../version.js';
import { DeliveryError } from './types.js';

/**
 * One JSON POST for a channel: a deadline, no redirects, and the answer classified as
 * delivered, retryable (429 with Retry-After, 408, 5xx, network, timeout) or permanent.
 * `prefix` names the receiver in errors; the URL never appears in them.
 */
export async function postJson(url: string, body: string, o: { prefix: string; timeoutMs: number; signal: AbortSignal; headers?: Record<string, string> }): Promise<void> {
  const attempt = linkedSignal(o.signal, o.timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': `avawatch/${VERSION}`, ...o.headers },
      body,
      signal: attempt.signal,
      redirect: 'error',
    });
    text = await res.text();
  } catch (err) {
    if (attempt.timedOut) throw new DeliveryError(`${o.prefix}: no answer within ${o.timeoutMs} ms`, 'timeout', true);
    throw new DeliveryError(`${o.prefix}: ${(err as { cause?: { code?: string } }).cause?.code ?? 'network error'}`, 'network', true);
  } finally {
    attempt.dispose();
  }
  if (res.ok) return;
  const said = text.replace(/[^\w .,:;()[\]/'"-]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 160);
  const retryable = res.status === 429 || res.status === 408 || res.status >= 500;
  const wait = res.status === 429 ? parseRetryAfter(res.headers.get('retry-after') ?? undefined) : undefined;
  throw new DeliveryError(`${o.prefix}: HTTP ${res.status}${said ? `: ${said}` : ''}`, `http_${res.status}`, retryable, wait);
}
