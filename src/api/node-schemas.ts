import { z } from 'zod';

// The answers of an AvalancheGo node's own APIs (docs/node-api-source.md), read as the Go
// source writes them: json.Uint64/Float64 are quoted strings there, but bare numbers must
// parse too (their Go unmarshal takes both, and proxies re-encode). Only the fields avawatch
// uses are read; unknown fields, new check names and any `message` JSON never fail. Here:
// what NodeApi itself reads (/ext/health, the JSON-RPC envelope); a method's result is read
// by the kind that calls it (node-health/read.ts: the info replies). The shapes they give are
// node-api.ts's (not imported: that module imports this one).

/** Go's strconv.ParseFloat text as json.Float64 prints it ("99.1234", "NaN", "+Inf") or any decimal. */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const SPECIAL: Record<string, number> = { NaN: Number.NaN, Inf: Infinity, '+Inf': Infinity, '-Inf': -Infinity };

/** A number as Go's json wrappers write it: a quoted decimal, or bare. Non-finite values pass through. A kind's reply schemas build on it. */
export const goNumber = z.union([z.number(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'number') return v;
  const text = v.trim();
  if (text in SPECIAL) return SPECIAL[text] as number;
  if (DECIMAL.test(text)) return Number(text);
  ctx.addIssue({ code: 'custom', message: 'expected a number (bare or a quoted decimal)' });
  return z.NEVER;
});

/** When a check started failing: Go's RFC 3339 (any offset, up to nanoseconds) as ISO 8601; anything odd is dropped, not fatal. */
function instant(value: unknown): string | undefined {
  const ms = typeof value === 'string' ? Date.parse(value) : typeof value === 'number' ? value : Number.NaN;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return undefined;
  return new Date(ms).toISOString();
}

/** A check's error (Go: *string, omitted when passing). null passes; a non-string failure still fails. */
function errorText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** contiguousFailures: a bare int64 (omitted when 0); a quoted one parses too, anything else reads as 0. */
function failures(value: unknown): number {
  const parsed = goNumber.safeParse(value);
  return parsed.success && Number.isFinite(parsed.data) ? Math.trunc(parsed.data) : 0;
}

const healthResult = z.looseObject({ error: z.unknown().optional(), contiguousFailures: z.unknown().optional(), timeOfFirstFailure: z.unknown().optional() });

/**
 * The peers the node is connected to, from its `network` check's message (network/network.go
 * HealthCheck: `ConnectedPeersKey` = "connectedPeers", an int): the count without the peer list.
 * Only a non-negative safe integer reads; the message may be anything (the check not yet run
 * has none), and anything else is no figure, never a failed answer.
 */
function connectedPeers(check: unknown): number | undefined {
  if (typeof check !== 'object' || check === null) return undefined;
  const message = (check as { message?: unknown }).message;
  if (typeof message !== 'object' || message === null || Array.isArray(message) || !Object.hasOwn(message, 'connectedPeers')) return undefined;
  const parsed = goNumber.safeParse((message as { connectedPeers?: unknown }).connectedPeers);
  return parsed.success && Number.isSafeInteger(parsed.data) && parsed.data >= 0 ? parsed.data : undefined;
}

/** GET /ext/health (200 healthy, 503 not, the same body): APIReply {checks, healthy}; the `network` check's connectedPeers. */
export const healthReply = z
  // The check map is walked as parsed (z.record drops a key named __proto__): any name is only a name.
  .looseObject({
    checks: z.custom<Record<string, unknown> | null | undefined>((v) => v === null || v === undefined || (typeof v === 'object' && !Array.isArray(v)), { message: 'expected an object of checks' }),
    healthy: z.boolean(),
  })
  .transform((r, ctx) => {
    const checks: Array<{ name: string; error?: string; contiguousFailures: number; timeOfFirstFailure?: string | undefined }> = [];
    for (const [name, raw] of Object.entries(r.checks ?? {})) {
      const parsed = healthResult.safeParse(raw);
      if (!parsed.success) {
        ctx.addIssue({ code: 'custom', path: ['checks', name], message: 'expected a check result object' });
        return z.NEVER;
      }
      const c = parsed.data;
      const error = errorText(c.error);
      if (error === undefined) checks.push({ name, contiguousFailures: failures(c.contiguousFailures) });
      else checks.push({ name, error, contiguousFailures: failures(c.contiguousFailures), timeOfFirstFailure: instant(c.timeOfFirstFailure) });
    }
    checks.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const peers = r.checks && Object.hasOwn(r.checks, 'network') ? connectedPeers(r.checks['network']) : undefined;
    return peers === undefined ? { healthy: r.healthy, checks } : { healthy: r.healthy, checks, connectedPeers: peers };
  });

/** The JSON-RPC 2.0 envelope of gorilla/rpc json2: `result`, or `error` {code, message, data}. */
export const rpcEnvelope = z.looseObject({
  result: z.unknown().optional(),
  error: z.looseObject({ code: z.unknown().optional(), message: z.unknown().optional() }).nullish(),
});
