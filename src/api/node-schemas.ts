import { z } from 'zod';

// The answers of an AvalancheGo node's own APIs (docs/node-api-source.md), read as the Go
// source writes them: json.Uint64/Float64 are quoted strings there, but bare numbers must
// parse too (their Go unmarshal takes both, and proxies re-encode). Only the fields avawatch
// uses are read; unknown fields, new check names and any `message` JSON never fail. The
// shapes they give are node-api.ts's (not imported: that module imports this one).

/** Go's strconv.ParseFloat text as json.Float64 prints it ("99.1234", "NaN", "+Inf") or any decimal. */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const SPECIAL: Record<string, number> = { NaN: Number.NaN, Inf: Infinity, '+Inf': Infinity, '-Inf': -Infinity };

/** A number as Go's json wrappers write it: a quoted decimal, or bare. Non-finite values pass through. */
const goNumber = z.union([z.number(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'number') return v;
  const text = v.trim();
  if (text in SPECIAL) return SPECIAL[text] as number;
  if (DECIMAL.test(text)) return Number(text);
  ctx.addIssue({ code: 'custom', message: 'expected a number (bare or a quoted decimal)' });
  return z.NEVER;
});

/** A percentage avawatch keeps: finite and within 0..100, or the answer is no reading at all. */
const percent = goNumber.refine((n) => Number.isFinite(n) && n >= 0 && n <= 100, { message: 'expected a percentage within 0..100' });

/** A count (json.Uint64): a non-negative integer. */
const count = goNumber.refine((n) => Number.isSafeInteger(n) && n >= 0, { message: 'expected a non-negative integer' });

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

/** GET /ext/health (200 healthy, 503 not, the same body): APIReply {checks, healthy}. */
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
    return { healthy: r.healthy, checks };
  });

/** The JSON-RPC 2.0 envelope of gorilla/rpc json2: `result`, or `error` {code, message, data}. */
export const rpcEnvelope = z.looseObject({
  result: z.unknown().optional(),
  error: z.looseObject({ code: z.unknown().optional(), message: z.unknown().optional() }).nullish(),
});

/** info.getNodeID: {nodeID, nodePOP: {publicKey, proofOfPossession} | null}. */
export const nodeIdReply = z
  .looseObject({
    // ids.NodeID's text: NodeID- and CB58 (a hostile length never reaches an alert).
    nodeID: z.string().regex(/^NodeID-[1-9A-HJ-NP-Za-km-z]{20,60}$/, 'expected NodeID-…'),
    // formatting.HexNC: 0x and 96 hex digits; another shape is no key read (never a failed answer).
    nodePOP: z.looseObject({ publicKey: z.string().optional().catch(undefined) }).nullish().catch(undefined),
  })
  .transform((r): { nodeId: string; blsPublicKey?: string } => {
    const key = r.nodePOP?.publicKey;
    return key === undefined || !/^0x[0-9a-fA-F]{96}$/.test(key) ? { nodeId: r.nodeID } : { nodeId: r.nodeID, blsPublicKey: key.toLowerCase() };
  });

/** info.getNodeVersion: {version: "avalanchego/1.14.2", databaseVersion, rpcProtocolVersion, gitCommit, vmVersions}. */
export const nodeVersionReply = z.looseObject({ version: z.string().min(1) }).transform((r) => r.version);

/** info.isBootstrapped: {isBootstrapped}. */
export const isBootstrappedReply = z.looseObject({ isBootstrapped: z.boolean() }).transform((r) => r.isBootstrapped);

/** info.uptime: two json.Float64 percentages ("99.1234"). */
export const uptimeReply = z
  .looseObject({ rewardingStakePercentage: percent, weightedAveragePercentage: percent })
  .transform((r) => ({ rewardingStakePercentage: r.rewardingStakePercentage, weightedAveragePercentage: r.weightedAveragePercentage }));

/** info.peers: numPeers (json.Uint64); without it, the length of `peers`. */
export const peersReply = z
  .looseObject({ numPeers: count.optional(), peers: z.array(z.unknown()).nullish() })
  .refine((r) => r.numPeers !== undefined || Array.isArray(r.peers), { message: 'neither numPeers nor peers' })
  .transform((r) => r.numPeers ?? r.peers?.length ?? 0);
