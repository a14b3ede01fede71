import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

// A hostile service between the daemon and the simulator, on loopback: it forwards every
// request and, while a distortion is set, answers as the live service or a gateway in front
// of it might for one poll: a field left out or at an edge, items repeated or reordered, a
// 429 with any wait, a 5xx, a body that is not JSON or is huge, a slow answer, an error page
// that quotes the request's headers (the API key among them).

/** What a field becomes: a value, nothing (left out), or the value scaled (ms for s) or shifted (seconds ahead). */
export type Edge = { set: unknown } | { omit: true } | { scale: number } | { shift: number };

export type Distortion =
  /** One field of the items of a list (`validators` or `blocks`), of one node's items or all. */
  | { kind: 'field'; list: 'validators' | 'blocks'; node?: string; field: string; edge: Edge; match?: string }
  /** The items of a list repeated, reversed, flooded (40,000 other items added) or one node's dropped. */
  | { kind: 'items'; list: 'validators' | 'blocks'; how: 'repeat' | 'reverse' | 'flood' | 'drop'; node?: string; match?: string }
  /** One field of a node's own answer (`result.rewardingStakePercentage` of /ext/info, `checks.database` of /ext/health). */
  | { kind: 'node'; match: string; field: string; edge: Edge }
  /** Every request whose path matches gets this answer instead. */
  | { kind: 'http'; match: string; status: number; body?: string | Buffer; headers?: Record<string, string>; delayMs?: number; echoHeaders?: boolean; hugeBytes?: number };

export interface HostileService {
  url: string;
  /** Distortions applied to every answer until cleared. */
  set(distortions: readonly Distortion[]): void;
  clear(): void;
  /** Requests answered, by outcome: forwarded as they were, distorted, or replaced. */
  served: { plain: number; distorted: number; replaced: number };
  close(): Promise<void>;
}

const FLOOD = 40_000;

export async function startHostileService(upstream: string): Promise<HostileService> {
  let active: readonly Distortion[] = [];
  const served = { plain: 0, distorted: 0, replaced: 0 };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `fuzz proxy: ${String(err)}`, statusCode: 500 }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const body = await readAll(req);
    const replace = active.find((d): d is Extract<Distortion, { kind: 'http' }> => d.kind === 'http' && new RegExp(d.match).test(url.pathname));
    if (replace) {
      served.replaced++;
      return answerWith(req, res, replace);
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
    // undici's request, not fetch: a third of the CPU per forwarded answer.
    const up = await request(`${upstream}${url.pathname}${url.search}`, { method: (req.method ?? 'GET') as 'GET', headers, ...(body.length > 0 ? { body } : {}) });
    let text = await up.body.text();
    const ok = up.statusCode >= 200 && up.statusCode < 300;
    const here = active.filter((d) => d.kind === 'http' || (matches(d.match, url.pathname) && (d.kind === 'node' || d.list !== 'blocks' || d.node === undefined || url.pathname.includes(`/nodes/${d.node}/`))));
    // A node's report is JSON at 503 too (unhealthy): its fields are as open to distortion.
    const reshaped = here.length > 0 && (ok || here.some((d) => d.kind === 'node')) ? reshape(text, here) : undefined;
    if (reshaped !== undefined) {
      text = reshaped;
      served.distorted++;
    } else served.plain++;
    const out: Record<string, string> = { 'content-type': 'application/json' };
    for (const [k, v] of Object.entries(up.headers)) if (typeof v === 'string' && (k.startsWith('ratelimit') || k === 'retry-after')) out[k] = v;
    res.writeHead(up.statusCode, out).end(text);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    set: (d) => (active = d),
    clear: () => (active = []),
    served,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answerWith(req: IncomingMessage, res: ServerResponse, d: Extract<Distortion, { kind: 'http' }>): Promise<void> {
  if (d.delayMs !== undefined) {
    const closed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), d.delayMs);
      res.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (closed) return;
  }
  const headers = { 'content-type': 'application/json', ...d.headers };
  if (d.hugeBytes !== undefined) return streamHuge(res, d.status, headers, d.hugeBytes);
  let body: string | Buffer = d.body ?? JSON.stringify({ message: `HTTP ${d.status} from the fuzz gateway`, statusCode: d.status, error: 'Fuzz' });
  if (d.echoHeaders) {
    // As some gateways' error pages do: the request as received, credentials and all.
    const quoted = Object.entries(req.headers).map(([k, v]) => `${k}: ${String(v)}`).join('; ');
    body = JSON.stringify({ message: `Bad gateway while forwarding ${req.method} ${req.url} (${quoted})`, statusCode: d.status, error: 'Bad Gateway' });
  }
  res.writeHead(d.status, headers);
  sendInPieces(res, typeof body === 'string' ? Buffer.from(body) : body);
}

/**
 * Written 64 KiB at a time as the client reads: one write of a 32 MiB body holds this process's
 * event loop (the daemon's too: it runs here) for a second of the socket's writev.
 */
function sendInPieces(res: ServerResponse, bytes: Buffer): void {
  let at = 0;
  const pump = (): void => {
    while (at < bytes.length && !res.destroyed) {
      const piece = bytes.subarray(at, at + 65_536);
      at += piece.length;
      if (!res.write(piece)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

/** A body of `bytes` (a JSON list that never seems to end), written while the client reads. */
function streamHuge(res: ServerResponse, status: number, headers: Record<string, string>, bytes: number): void {
  res.writeHead(status, headers);
  const chunk = Buffer.from(`${'{"validators":['.padEnd(64, ' ')}${'1,'.repeat(32_736)}`.slice(0, 65_536));
  let sent = 0;
  const pump = (): void => {
    while (sent < bytes && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end(']}');
  };
  pump();
}

function matches(pattern: string | undefined, path: string): boolean {
  return pattern === undefined || new RegExp(pattern).test(path);
}

function reshape(text: string, distortions: readonly Distortion[]): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null) return undefined;
  const body = json as Record<string, unknown>;
  let changed = false;
  for (const d of distortions) {
    if (d.kind === 'http') continue;
    if (d.kind === 'node') {
      setPath(body, d.field, d.edge);
      changed = true;
      continue;
    }
    const items = body[d.list];
    if (!Array.isArray(items)) continue;
    // A validator item names its node; a block list is one node's (its path says whose).
    const mine = (item: unknown) => d.node === undefined || d.list === 'blocks' || (item as { nodeId?: unknown }).nodeId === d.node;
    if (d.kind === 'field') {
      for (const item of items) {
        if (!mine(item) || typeof item !== 'object' || item === null) continue;
        setPath(item as Record<string, unknown>, d.field, d.edge);
        changed = true;
      }
      continue;
    }
    const before = items.length;
    if (d.how === 'repeat') body[d.list] = items.flatMap((i: unknown) => [i, structuredClone(i)]);
    else if (d.how === 'reverse') body[d.list] = [...items].reverse();
    else if (d.how === 'drop') body[d.list] = items.filter((i: unknown) => !mine(i));
    // Thousands of other items, each its own key: what a list can do to a rule in one answer.
    else body[d.list] = [...items, ...Array.from({ length: FLOOD }, (_, i) => ({ nodeId: `NodeID-flood${i}`, validationStatus: 'active', delegatorCount: 1 }))];
    changed ||= before > 0;
  }
  return changed ? JSON.stringify(body) : undefined;
}

/** `a.b` inside the item becomes what the edge says. */
function setPath(target: Record<string, unknown>, path: string, edge: Edge): void {
  const keys = path.split('.');
  let at = target;
  for (const k of keys.slice(0, -1)) {
    const next = at[k];
    if (typeof next !== 'object' || next === null) return;
    at = next as Record<string, unknown>;
  }
  const last = keys.at(-1) as string;
  const was = at[last];
  if ('omit' in edge) delete at[last];
  else if ('set' in edge) at[last] = edge.set;
  else if (typeof was === 'number') at[last] = 'scale' in edge ? was * edge.scale : was + edge.shift;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
