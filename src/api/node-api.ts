import { formatDuration } from '../base/duration.js';
import type { Dispatcher } from 'undici';
import { undici } from './undici.js';
import type { z } from 'zod';
import type { Clock } from '../base/clock.js';
import { linkedSignal } from '../base/abort.js';
import { healthReply, rpcEnvelope } from './node-schemas.js';
import { networkErrorText } from './errors.js';

// The operator's own AvalancheGo node: /ext/health, any JSON-RPC method (a kind reads the ones
// it calls from its folder: node-health/read.ts the /ext/info ones) and /ext/metrics, read as
// the Go source answers them (docs/node-api-source.md, checked against avalanchego 1.14.2 by
// test/contract/node.test.ts).

/** One health check as the node reports it in /ext/health. */
export interface HealthCheck {
  /** The check's name: network, router, database, diskspace, bls, futureupgrade, bootstrapped, a chain's alias (P, X, C) or id, … */
  name: string;
  /** The check's error text; undefined when it passes. "not yet run" for a check registered but not run yet. */
  error?: string | undefined;
  /** Check runs in a row that failed (the node runs its checks every 30 s by default); 0 when it passes. */
  contiguousFailures: number;
  /** When it started failing, ISO 8601 (UTC, ms); undefined when it passes or the node's value is unreadable. */
  timeOfFirstFailure?: string | undefined;
}

export interface HealthReport {
  /** The node's own verdict: every reported check passes (it answers 200, else 503). */
  healthy: boolean;
  /** Every check, sorted by name. */
  checks: HealthCheck[];
  /**
   * Peers the node is connected to: the `network` check's `message.connectedPeers`
   * (network/network.go), as of its last run (every 30 s). Undefined when the answer carries
   * none (the check not run yet, an odd message).
   */
  connectedPeers?: number | undefined;
}

/** A call to a node that failed: why, in text that never holds the URL's credentials. */
export class NodeApiError extends Error {
  override readonly name = 'NodeApiError';
  constructor(
    message: string,
    /**
     * unreachable: no answer (network, timeout, an HTTP error, a proxy's error page); invalid: an
     * answer we cannot read; too_large: an answer over the cap (the node answered); off: 404, the
     * API is switched off (AvalancheGo's --api-info-enabled / --api-health-enabled); rpc: the
     * node's own JSON-RPC error.
     */
    readonly kind: 'unreachable' | 'invalid' | 'too_large' | 'off' | 'rpc',
    /** The node's host:port, when the call reached for one (never its credentials). */
    readonly where?: string,
  ) {
    super(message);
  }
}

/** The operator's AvalancheGo node APIs. `base` is the node's API URL (http://host:9650, may carry a path prefix). */
export interface NodeApi {
  health(base: string, signal: AbortSignal): Promise<HealthReport>;
  /** A Prometheus text exposition at this URL (the node's /ext/metrics, or any exporter's), capped in size. */
  metricsText(url: string, signal: AbortSignal): Promise<string>;
  /**
   * Any JSON-RPC method the node serves at `path` (`/ext/info`, `/ext/bc/P`, …), its result
   * read with the caller's schema of only the fields it reads: a kind keeps the methods it
   * calls and their schemas in its own folder (node-health/read.ts: the info calls), so this
   * interface does not grow a method per method. Throws a NodeApiError: `unreachable`,
   * `invalid` (an envelope or a result that does not parse) or `rpc` (the node's own error).
   */
  rpc<T>(base: string, path: string, method: string, params: Record<string, unknown>, schema: z.ZodType<T>, signal: AbortSignal): Promise<T>;
}

export interface HttpNodeApiOptions {
  /** Or the promise of one (an agent made once undici has loaded). */
  dispatcher?: Dispatcher | Promise<Dispatcher>;
  /** Whole-request deadline: headers and body together. */
  timeoutMs: number;
  /** Cap of a JSON answer (default 1 MiB). */
  maxResponseBytes?: number;
  /** Cap of a metrics exposition (default 32 MiB). */
  maxMetricsBytes?: number;
  /** A metrics read answered within this long answers an identical one (default 5 s; 0: never shared). */
  shareMs?: number;
  /** The clock reads are aged by (the App's: simulated in rule tests). */
  clock: Clock;
  /** endpoint: health, the JSON-RPC method (info.uptime, …), metrics; code: the HTTP status, timeout, network_error, too_large, invalid, rpc_error. */
  onResponse?: (endpoint: string, code: string) => void;
}

const MIB = 1024 * 1024;
/** How much of the node's JSON-RPC error message an error quotes. */
const RPC_MESSAGE_CHARS = 300;

interface Target {
  url: URL;
  /** host:port, the only part of the URL an error names. */
  where: string;
  headers: Record<string, string>;
}

interface Exchange {
  endpoint: string;
  target: Target;
  signal: AbortSignal;
  /** The statuses this endpoint answers normally (/ext/health: 200 and 503). */
  accept: readonly number[];
  maxBytes: number;
  body?: unknown;
}

export class HttpNodeApi implements NodeApi {
  readonly #o: Required<Omit<HttpNodeApiOptions, 'dispatcher' | 'onResponse'>> & Pick<HttpNodeApiOptions, 'dispatcher' | 'onResponse'>;
  #id = 0;
  readonly #metrics = new Map<string, { at: number | undefined; text: Promise<string> }>();
  /** JSON-RPC calls in flight, by node, method and params (rpc). */
  readonly #rpcs = new Map<string, Promise<unknown>>();

  constructor(options: HttpNodeApiOptions) {
    this.#o = { maxResponseBytes: MIB, maxMetricsBytes: 32 * MIB, shareMs: 5_000, ...options };
  }

  async health(base: string, signal: AbortSignal): Promise<HealthReport> {
    const target = resolveTarget(base, '/ext/health');
    const { status, text } = await this.#exchange({ endpoint: 'health', target, signal, accept: [200, 503], maxBytes: this.#o.maxResponseBytes });
    // AvalancheGo answers 503 with its report when unhealthy; a 503 without one is a proxy's
    // error page (the node behind it is gone): the API does not answer, as with a 502.
    if (status === 503 && !isHealthReport(text)) {
      throw new NodeApiError(`node ${target.where} health: HTTP 503 without a health report (a proxy's error page: the node behind it does not answer)`, 'unreachable', target.where);
    }
    const report = this.#parse('health', target, healthReply, parseJson('health', target, text, this.#o.onResponse));
    // The body is the verdict; a 503 that says healthy (a proxy's doing) still reads as unhealthy.
    return status === 503 ? { ...report, healthy: false } : report;
  }

  /**
   * Rules watching the same node read one exposition (several MB): a read in flight, or
   * answered within `shareMs` (on the steady clock), answers them all. Each caller still stops at its own signal;
   * the shared read stops at its deadline.
   */
  async metricsText(url: string, signal: AbortSignal): Promise<string> {
    const now = this.#o.clock.mono();
    const hit = this.#metrics.get(url);
    if (hit && (hit.at === undefined || now - hit.at < this.#o.shareMs)) return untilAborted(hit.text, signal);
    const target = resolveTarget(url, '');
    const entry: { at: number | undefined; text: Promise<string> } = { at: undefined, text: Promise.resolve('') };
    entry.text = this.#exchange({ endpoint: 'metrics', target, signal: new AbortController().signal, accept: [200], maxBytes: this.#o.maxMetricsBytes }).then(
      (r) => {
        entry.at = this.#o.clock.mono();
        // Kept only for the window: a big exposition is not held until the next poll.
        this.#o.clock.setTimer(() => this.#metrics.get(url) === entry && this.#metrics.delete(url), this.#o.shareMs, { unref: true });
        return r.text;
      },
      (err: unknown) => {
        this.#metrics.delete(url);
        throw err;
      },
    );
    // Each caller handles its own copy; this one keeps a read nobody awaits any more from crashing the process.
    entry.text.catch(() => undefined);
    this.#metrics.set(url, entry);
    return untilAborted(entry.text, signal);
  }

  /**
   * An identical call in flight (the same node, method and params) answers this one too: rules
   * polling at the same tick (validator-health's and validation-end's P-Chain read, node-health's
   * and validator-health's info.uptime) make one call. Only while in flight: a poll never reads
   * an answer older than itself. Each caller reads the result with its own schema and stops at
   * its own signal; the call stops at its deadline.
   */
  async rpc<T>(base: string, path: string, method: string, params: Record<string, unknown>, schema: z.ZodType<T>, signal: AbortSignal): Promise<T> {
    const target = resolveTarget(base, path);
    const key = `${base}\u0000${path}\u0000${method}\u0000${JSON.stringify(params)}`;
    let result = this.#rpcs.get(key);
    if (!result) {
      const call = this.#call(target, method, params, new AbortController().signal).finally(() => this.#rpcs.delete(key));
      // Each caller handles its own copy; this one keeps a call nobody awaits any more from crashing the process.
      call.catch(() => undefined);
      this.#rpcs.set(key, call);
      result = call;
    }
    return this.#parse(method, target, schema, await untilAborted(result, signal));
  }

  /** One JSON-RPC exchange: the envelope's result, or the node's error as a NodeApiError (`rpc`). */
  async #call(target: Target, method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const body = { jsonrpc: '2.0', id: ++this.#id, method, params };
    const { text } = await this.#exchange({ endpoint: method, target, signal, accept: [200], maxBytes: this.#o.maxResponseBytes, body });
    const envelope = this.#parse(method, target, rpcEnvelope, parseJson(method, target, text, this.#o.onResponse));
    if (envelope.error) {
      this.#o.onResponse?.(method, 'rpc_error');
      const message = typeof envelope.error.message === 'string' ? envelope.error.message : JSON.stringify(envelope.error.message ?? null);
      const code = typeof envelope.error.code === 'number' ? ` (${envelope.error.code})` : '';
      throw new NodeApiError(`node ${target.where} ${method}: the node answered an error${code}: ${clip(message)}`, 'rpc');
    }
    return envelope.result;
  }

  #parse<T>(endpoint: string, target: Target, schema: z.ZodType<T>, value: unknown): T {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    this.#o.onResponse?.(endpoint, 'invalid');
    const issue = parsed.error.issues[0];
    // The path may hold a name the node chose (a health check's): clipped as its text is.
    const where = issue && issue.path.length > 0 ? `${clip(issue.path.map(String).join('.'), 120)}: ` : '';
    throw new NodeApiError(`node ${target.where} ${endpoint}: an answer that does not parse (${where}${issue?.message ?? 'invalid'})`, 'invalid');
  }

  async #exchange(x: Exchange): Promise<{ status: number; text: string }> {
    // undici and the agent load (at a process's first request) before the deadline starts: it times the exchange alone.
    const [{ request }, dispatcher] = await Promise.all([undici(), this.#o.dispatcher]);
    const deadline = linkedSignal(x.signal, this.#o.timeoutMs);
    const fail = (what: string, code: string, kind: NodeApiError['kind'] = 'unreachable'): NodeApiError => {
      this.#o.onResponse?.(x.endpoint, code);
      return new NodeApiError(`node ${x.target.where} ${x.endpoint}: ${what}`, kind, x.target.where);
    };
    const tooLarge = () => fail(`answered, but over ${x.maxBytes} bytes: too large to read`, 'too_large', 'too_large');
    try {
      const post = x.body !== undefined;
      // undici's request follows no redirect: a 3xx comes back as itself and is refused below.
      const res = await request(x.target.url, {
        method: post ? 'POST' : 'GET',
        ...(dispatcher ? { dispatcher } : {}),
        headers: { accept: post ? 'application/json' : '*/*', ...(post ? { 'content-type': 'application/json' } : {}), ...x.target.headers },
        ...(post ? { body: JSON.stringify(x.body) } : {}),
        signal: deadline.signal,
      });
      if (res.statusCode === 404) {
        discard(res.body);
        // AvalancheGo's router answers 404 for an API it does not serve: switched off by a flag.
        throw fail('HTTP 404: the node does not serve this API (switched off?)', '404', 'off');
      }
      if (!x.accept.includes(res.statusCode)) {
        discard(res.body);
        const redirect = res.statusCode >= 300 && res.statusCode < 400 ? ' (a redirect: not followed)' : '';
        throw fail(`HTTP ${res.statusCode}${redirect}`, String(res.statusCode));
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > x.maxBytes) {
        discard(res.body);
        throw tooLarge();
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > x.maxBytes) {
          discard(res.body);
          throw tooLarge();
        }
        chunks.push(chunk as Buffer);
      }
      this.#o.onResponse?.(x.endpoint, String(res.statusCode));
      return { status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') };
    } catch (err) {
      if (err instanceof NodeApiError) throw err;
      if (deadline.timedOut) throw fail(`no complete answer within ${formatDuration(this.#o.timeoutMs)}`, 'timeout');
      if (x.signal.aborted) throw fail('aborted', 'aborted');
      // Only the error's code: an undici message may quote the URL.
      const cause = err as { code?: unknown; cause?: { code?: unknown } };
      const code = typeof cause.code === 'string' ? cause.code : typeof cause.cause?.code === 'string' ? cause.cause.code : undefined;
      throw fail(networkErrorText(code, err instanceof Error ? err.name : 'unknown'), 'network_error');
    } finally {
      deadline.dispose();
    }
  }
}

/** AvalancheGo's health report: a JSON object with `checks` or `healthy` (the rest is read by healthReply). */
function isHealthReport(text: string): boolean {
  try {
    const json = JSON.parse(text) as unknown;
    return typeof json === 'object' && json !== null && !Array.isArray(json) && ('checks' in json || 'healthy' in json);
  } catch {
    return false;
  }
}

function parseJson(endpoint: string, target: Target, text: string, onResponse: HttpNodeApiOptions['onResponse']): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    onResponse?.(endpoint, 'invalid');
    throw new NodeApiError(`node ${target.where} ${endpoint}: an answer that is not JSON`, 'invalid');
  }
}

/**
 * The URL of `path` under `base`: appended to base's path (a proxy prefix stays), base's
 * query kept. Userinfo becomes a Basic authorization header; no part of it, nor the path or
 * query, is ever named in an error: only host:port.
 */
export function resolveTarget(base: string, path: string): Target {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new NodeApiError('node API: not a valid URL', 'invalid');
  }
  const where = url.host;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new NodeApiError(`node ${where}: not an http(s) URL`, 'invalid');
  const headers: Record<string, string> = {};
  if (url.username !== '' || url.password !== '') {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    headers['authorization'] = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  url.hash = '';
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  return { url, where, headers };
}

/** Drops an answer's body unread: undici reports the abort as an error, which nobody awaits. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function clip(text: string, chars = RPC_MESSAGE_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > chars ? `${flat.slice(0, chars)}…` : flat;
}

/** The shared promise, or the caller's abort, whichever comes first. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err as Error);
      },
    );
  });
}
