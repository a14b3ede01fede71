import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { parseDuration } from '../base/duration.js';
import { Budget, DEFAULT_BUDGETS, type KeyPlans } from './budget.js';
import { SimClock } from './clock.js';
import { error, ok, type Reply } from './http.js';
import { SIM_ROUTES } from './areas.js';
import { nodeReply, type NodeReply } from './routes-node.js';
import { applyChange, Timeline, worldChange, type BudgetOverride, type Scenario } from './scenario.js';
import { World, type Fault } from './world.js';

export interface SimOptions {
  port?: number;
  host?: string;
  /** A world built by the caller (tests); otherwise one from the scenario. */
  world?: World;
  scenario?: Scenario;
  seed?: number;
  budget?: BudgetOverride;
  /**
   * The service's API keys, each with its Data API plan (a tier of api-notes.md, or limits): a
   * request carrying one in `x-glacier-api-key` is metered on that key's own windows. Without
   * a key, or with one not listed here, the keyless budget (`budget.data`).
   */
  keys?: KeyPlans;
  /** The scenario's clock stands at its start until `world.clock.run()`. */
  held?: boolean;
}

export interface SimServer {
  url: string;
  world: World;
  budget: Budget;
  /** Every Data/Metrics API request served, in order (method, path and query). */
  requests: string[];
  /** Every request to a simulated node's API (/node/{NodeID}/ext/…), apart: they spend no compute units. */
  nodeRequests: string[];
  /** Applies the scenario events whose time has come; returns how many. */
  tick(): number;
  close(): Promise<void>;
}

/** The live service's key header (api-notes.md "Hosts and key"). */
const KEY_HEADER = 'x-glacier-api-key';

// A bad pattern is refused here, not thrown later by the request it was meant to fail.
const queuedFault = z.looseObject({ status: z.number(), pathMatches: z.string().refine(isPattern, 'not a regular expression').optional() });

/**
 * The Data API and Metrics API simulator on one port: live shapes, opaque page tokens,
 * the service's errors, compute-unit budgets, faults, a simulated clock and a control API.
 */
export async function startSim(options: SimOptions = {}): Promise<SimServer> {
  const scenario = options.scenario;
  const startMs = scenario?.start ? Date.parse(scenario.start) : Date.now();
  const world = options.world ?? new World(new SimClock(startMs, scenario?.speed ?? 1, options.held));
  if (scenario) applyChange(world, scenario.world, startMs);
  const timeline = scenario ? new Timeline(scenario, startMs) : undefined;
  const budget = new Budget({ ...DEFAULT_BUDGETS, ...scenario?.budget, ...options.budget }, options.keys);
  const random = seeded(options.seed ?? scenario?.seed ?? 1);
  const requests: string[] = [];
  const nodeRequests: string[] = [];

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, error(500, String(err))));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim');
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readJson(req);
    if (url.pathname.startsWith('/node/') || url.pathname.startsWith('/p-chain/')) {
      timeline?.applyDue(world);
      nodeRequests.push(`${req.method} ${url.pathname}`);
      return sendNode(res, nodeReply(world.nodes, req.method ?? 'GET', url.pathname, body, (network, m, params) => world.pchainApi(network, m, params), url.searchParams));
    }
    if (body instanceof Error) return send(res, error(400, `malformed JSON body: ${body.message}`));
    if (url.pathname.startsWith('/_sim/')) return send(res, control(req.method ?? 'GET', url, body));
    timeline?.applyDue(world);
    requests.push(`${req.method} ${url.pathname}${url.search}`);

    const fault = world.takeFault(url.pathname, url.searchParams);
    // A hung answer ends with its connection (the client gave up, or the simulator closed).
    if (fault?.delayMs !== undefined && !(await delay(fault.delayMs, res))) return;
    const faultReply = (f: Fault): Reply => ({
      status: f.status,
      body: f.body ?? { message: f.echoHeaders ? `injected fault; the request's headers: ${echoed(req)}` : 'injected fault', error: 'Injected', statusCode: f.status },
      headers: f.retryAfter === undefined ? {} : { 'retry-after': String(f.retryAfter) },
    });
    if (fault && !(fault.trickle && fault.body === undefined)) return fault.trickle ? trickle(res, faultReply(fault), fault.trickle) : send(res, faultReply(fault));

    const key = req.headers[KEY_HEADER];
    const charge = budget.charge(req.method ?? 'GET', url.pathname, typeof key === 'string' ? key : undefined);
    if (!charge.allowed) return send(res, { ...error(429, 'Rate limit exceeded: compute units for this window are spent'), headers: charge.headers });
    const s = world.settings;
    if (s.latencyMs > 0) await sleep(s.latencyMs);
    if (s.errorRate > 0 && random() < s.errorRate) return send(res, { ...error(random() < 0.5 ? 503 : 500, 'simulated failure'), headers: charge.headers });

    const route = SIM_ROUTES.find(([method, pattern]) => method === req.method && pattern.test(url.pathname));
    if (!route) return send(res, error(404, `Cannot ${req.method} ${url.pathname}`));
    const params = (route[1].exec(url.pathname) ?? []).slice(1);
    const reply = route[2]({ world, method: req.method ?? 'GET', url, params, body });
    if (reply.delayMs !== undefined && !(await delay(reply.delayMs, res))) return;
    const malformed = reply.status < 300 && s.malformedRate > 0 && random() < s.malformedRate;
    if (fault?.trickle) return trickle(res, { ...reply, headers: { ...charge.headers, ...reply.headers } }, fault.trickle);
    send(res, { ...reply, headers: { ...charge.headers, ...reply.headers } }, malformed);
  }

  function control(method: string, url: URL, body: unknown): Reply {
    const state = () => ({
      now: new Date(world.clock.nowMs()).toISOString(),
      nowSeconds: world.clock.now(),
      pendingEvents: timeline?.remaining ?? 0,
      computeUnits: budget.spent,
      requests: requests.length,
    });
    try {
      if (method === 'GET' && url.pathname === '/_sim/state') return ok(state());
      if (method === 'GET' && url.pathname === '/_sim/requests') return ok({ requests });
      if (method === 'POST' && url.pathname === '/_sim/clock') {
        const { advance } = z.strictObject({ advance: z.string() }).parse(body);
        const ms = parseDuration(advance);
        if (ms === undefined) return error(400, `"${advance}" is not a duration`);
        world.clock.advance(ms);
        timeline?.applyDue(world);
        return ok(state());
      }
      if (method === 'POST' && url.pathname === '/_sim/change') {
        applyChange(world, worldChange.parse(body), world.clock.nowMs());
        return ok(state());
      }
      if (method === 'POST' && url.pathname === '/_sim/faults') {
        world.faults.push(...z.array(queuedFault).parse(body));
        return ok({ queued: world.faults.length });
      }
      const match = /^\/_sim\/validators\/([^/]+)\/([^/]+)$/.exec(url.pathname);
      if (method === 'PUT' && match) {
        world.setValidators(match[1] as never, decodeURIComponent(match[2] as string), z.array(z.unknown()).parse(body));
        return ok({ ok: true });
      }
    } catch (err) {
      return error(400, err instanceof z.ZodError ? err.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`) : String(err));
    }
    return error(404, `no control endpoint ${method} ${url.pathname}`);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    world,
    budget,
    requests,
    nodeRequests,
    tick: () => timeline?.applyDue(world) ?? 0,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(res: ServerResponse, reply: Reply, malformed = false): void {
  if (res.destroyed) return;
  const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  res.end(malformed ? text.slice(0, Math.floor(text.length / 2)) : text);
}

/** A simulated node's answer as it is; a node that is down drops the connection unanswered. */
function sendNode(res: ServerResponse, reply: NodeReply): void {
  if (res.destroyed) return;
  if ('destroy' in reply) {
    res.socket?.destroy();
    return;
  }
  res.writeHead(reply.status, reply.headers);
  res.end(reply.body);
}

/** Waits `ms`; false when the connection closed meanwhile (nothing is left to answer). */
async function delay(ms: number, res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return false;
  const closed = new AbortController();
  const onClose = () => closed.abort();
  res.once('close', onClose);
  try {
    await sleep(ms, undefined, { signal: closed.signal });
    return true;
  } catch {
    return false;
  } finally {
    res.off('close', onClose);
  }
}

/** The headers at once, then the body a chunk at a time: slower than any whole-request deadline. */
async function trickle(res: ServerResponse, reply: Reply, pace: { chunkBytes: number; intervalMs: number }): Promise<void> {
  if (res.destroyed) return;
  const body = Buffer.from(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
  res.writeHead(reply.status, { 'content-type': 'application/json', 'content-length': String(body.length), ...reply.headers });
  res.flushHeaders();
  const step = Math.max(1, pace.chunkBytes);
  for (let at = 0; at < body.length; at += step) {
    if (!(await delay(pace.intervalMs, res))) return;
    res.write(body.subarray(at, at + step));
  }
  res.end();
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    return err as Error;
  }
}

function isPattern(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/** A request's headers as a gateway's error page quotes them: `name: value; …`. */
function echoed(req: IncomingMessage): string {
  return Object.entries(req.headers)
    .map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : (value ?? '')}`)
    .join('; ');
}

/** mulberry32: a small, seedable random source, so a fault run can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
