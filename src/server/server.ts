import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseListen } from '../base/listen.js';
import type { ServerAuthConfig } from '../config/schema.js';
import { STATUS_PAGE_CSP } from '../status/page.js';
import { authorizer } from './auth.js';
import type { Metrics } from '../metrics/registry.js';

export { parseListen } from '../base/listen.js';

export interface HttpServer {
  /** `http://host:port` actually bound (port 0 picks one). */
  url: string;
  close(): Promise<void>;
}

export interface HttpRoutes {
  /** JSON for GET /api/v1/alerts (read from the store: it may come as a Promise). */
  alerts: () => unknown;
  /** GET /readyz: 200 when ready, 503 with the reasons when not. */
  ready: () => Readiness | Promise<Readiness>;
  /** GET /: the status page's HTML (none: / is a 404). */
  statusPage?: () => Promise<string>;
}

interface Readiness {
  ready: boolean;
  problems: string[];
}

export interface HttpOptions {
  /** Credentials for everything but the probes' /healthz and /readyz. */
  auth?: ServerAuthConfig | undefined;
}

/** Probes (Docker, Kubernetes, systemd) carry no credentials, and these tell nothing of the chain. */
const OPEN_PATHS = new Set(['/healthz', '/readyz']);

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': STATUS_PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export async function startHttpServer(listen: string, metrics: Pick<Metrics, 'registry' | 'chunks'>, routes: HttpRoutes, options: HttpOptions = {}): Promise<HttpServer> {
  const auth = options.auth ? authorizer(options.auth) : undefined;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (auth && !OPEN_PATHS.has(path) && !auth.allows(req.headers.authorization)) {
      res.writeHead(401, { 'www-authenticate': auth.challenges, 'content-type': 'text/plain', 'cache-control': 'no-store' }).end('credentials required (server.auth)\n');
      return;
    }
    if (path === '/' && routes.statusPage) {
      void writePage(req, res, routes.statusPage);
      return;
    }
    if (path === '/metrics') {
      void writeMetrics(res, metrics);
      return;
    }
    if (path === '/api/v1/alerts') {
      void writeAnswer(res, async () => ({ status: 200, type: 'application/json', body: `${JSON.stringify({ alerts: await routes.alerts() })}\n` }));
      return;
    }
    if (path === '/readyz') {
      void writeAnswer(res, async () => {
        const { ready, problems } = await routes.ready();
        return { status: ready ? 200 : 503, type: 'text/plain', body: ready ? 'ready\n' : `not ready:\n${problems.map((p) => `- ${p}\n`).join('')}` };
      });
      return;
    }
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: try ${routes.statusPage ? '/, ' : ''}/metrics, /healthz, /readyz or /api/v1/alerts\n`);
  });
  server.keepAliveTimeout = 65_000;
  const { host, port } = parseListen(listen);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new Error(`cannot listen on ${listen}: ${err.message}`)));
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The status page; HEAD gets its headers (with the length) and no body. */
async function writePage(req: IncomingMessage, res: ServerResponse, page: () => Promise<string>): Promise<void> {
  let body: string;
  try {
    body = await page();
  } catch (err) {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(`status page failed: ${String(err)}\n`);
    return;
  }
  res.writeHead(200, { ...PAGE_HEADERS, 'content-length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** An answer read from the store: its failure is a 500, never an unhandled rejection. */
async function writeAnswer(res: ServerResponse, answer: () => Promise<{ status: number; type: string; body: string }>): Promise<void> {
  let a: { status: number; type: string; body: string };
  try {
    a = await answer();
  } catch (err) {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(`failed: ${String(err)}\n`);
    return;
  }
  res.writeHead(a.status, { 'content-type': a.type }).end(a.body);
}

/** Streams the exposition chunk by chunk, waiting while the scraper reads: little is alive at once. */
async function writeMetrics(res: ServerResponse, metrics: Pick<Metrics, 'registry' | 'chunks'>): Promise<void> {
  try {
    let started = false;
    for await (const chunk of metrics.chunks()) {
      if (!started) res.writeHead(200, { 'content-type': metrics.registry.contentType });
      started = true;
      if (!res.write(chunk)) await drained(res);
      if (res.destroyed) return;
    }
    res.end();
  } catch (err) {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${String(err)}\n`);
    else res.destroy();
  }
}

/** The client read what was written, or went away. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
