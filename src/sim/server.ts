import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { NETWORKS } from '../rules/validator-status/schema.js';
import { World } from './world.js';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export interface SimServer {
  url: string;
  world: World;
  /** Every Data API request served, in order (paths with query). */
  requests: string[];
  close(): Promise<void>;
}

/** The Data API simulator on loopback: live shapes, opaque page tokens, the service's errors. */
export async function startSim(options: { port?: number; host?: string; world?: World } = {}): Promise<SimServer> {
  const world = options.world ?? new World();
  const requests: string[] = [];
  const server = createServer((req, res) => {
    handle(world, requests, req, res).catch((err: unknown) => sendError(res, 500, String(err)));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    world,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(world: World, requests: string[], req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sim');
  if (url.pathname.startsWith('/_sim/')) return control(world, req, res, url);
  requests.push(`${req.method} ${url.pathname}${url.search}`);
  const fault = world.takeFault(url.pathname);
  if (fault?.delayMs !== undefined) await new Promise((r) => setTimeout(r, fault.delayMs));
  if (fault && !res.destroyed) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
    res.writeHead(fault.status, headers).end(fault.body ?? errorJson(fault.status, 'injected fault'));
    return;
  }
  const match = /^\/v1\/networks\/([^/]+)\/validators\/([^/]+)$/.exec(url.pathname);
  if (req.method === 'GET' && match) return validators(world, res, url, match[1] as string, decodeURIComponent(match[2] as string));
  sendError(res, 404, `Cannot ${req.method} ${url.pathname}`);
}

function validators(world: World, res: ServerResponse, url: URL, network: string, nodeId: string): void {
  const net = z.enum(NETWORKS).safeParse(network);
  if (!net.success) return sendError(res, 400, [`network must be one of the following values: ${NETWORKS.join(', ')}`]);
  const pageSize = Number(url.searchParams.get('pageSize') ?? '10');
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
    return sendError(res, 400, ['pageSize must not be greater than 100', 'pageSize must not be less than 1']);
  }
  let periods = world.validators(net.data, nodeId) as Array<{ validationStatus: string; startTimestamp: number }> | undefined;
  if (periods === undefined) {
    if (world.unknownNode === 'not-found') return sendError(res, 404, `Validator ${nodeId} not found`);
    periods = [];
  }
  const status = url.searchParams.get('validationStatus');
  if (status) periods = periods.filter((p) => p.validationStatus === status);
  const order = url.searchParams.get('sortOrder') === 'asc' ? 1 : -1;
  periods = [...periods].sort((a, b) => order * (a.startTimestamp - b.startTimestamp));
  const offset = readToken(url.searchParams.get('pageToken'));
  if (offset === undefined) return sendError(res, 400, 'Invalid page token');
  const page = periods.slice(offset, offset + pageSize);
  const next = offset + pageSize < periods.length ? makeToken(offset + pageSize) : undefined;
  sendJson(res, 200, { validators: page, ...(next ? { nextPageToken: next } : {}) });
}

async function control(world: World, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const body = req.method === 'GET' ? undefined : await readJson(req);
  const match = /^\/_sim\/validators\/([^/]+)\/([^/]+)$/.exec(url.pathname);
  if (req.method === 'PUT' && match) {
    world.setValidators(match[1] as never, decodeURIComponent(match[2] as string), z.array(z.unknown()).parse(body));
    return sendJson(res, 200, { ok: true });
  }
  if (req.method === 'POST' && url.pathname === '/_sim/faults') {
    const faults = z
      .array(
        z.object({
          status: z.number(),
          body: z.string().optional(),
          retryAfter: z.number().optional(),
          pathIncludes: z.string().optional(),
          delayMs: z.number().optional(),
        }),
      )
      .parse(body);
    world.faults.push(...faults);
    return sendJson(res, 200, { queued: world.faults.length });
  }
  sendError(res, 404, `no control endpoint ${req.method} ${url.pathname}`);
}

// Opaque to clients, like the live service's tokens.
function makeToken(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset, n: Math.random().toString(36).slice(2, 8) })).toString('base64url');
}

function readToken(token: string | null): number | undefined {
  if (token === null) return 0;
  try {
    const offset = (JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { o?: unknown }).o;
    return typeof offset === 'number' ? offset : undefined;
  } catch {
    return undefined;
  }
}

function errorJson(status: number, message: string | string[]): string {
  return JSON.stringify({ message, error: STATUS_TEXT[status] ?? 'Error', statusCode: status });
}

function sendError(res: ServerResponse, status: number, message: string | string[]): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(errorJson(status, message));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
}
