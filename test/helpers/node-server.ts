import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect } from 'vitest';
import { NodeApiError } from '../../src/api/node-api.js';

// A loopback server answering as an AvalancheGo node does, for the node API client's specs
// (src/api/node-api.spec.ts) and a node kind's calls through it (node-health/read.spec.ts).

export type Answer = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface Asked {
  method: string;
  url: string;
  authorization?: string | undefined;
  body: string;
}

/** One server at a time: `serve` starts it (its base URL), replacing the last; the file's afterEach closes it. `seen`: what it was asked. */
export function nodeServer(): { serve(answer: Answer): Promise<string>; seen: Asked[] } {
  let server: Server | undefined;
  const seen: Asked[] = [];
  async function close(): Promise<void> {
    const s = server;
    server = undefined;
    if (s) await new Promise<void>((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });
  }
  afterEach(close);
  async function serve(answer: Answer): Promise<string> {
    await close(); // a test serving again replaces its server
    seen.length = 0;
    const s = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body });
        answer(req, res, body);
      });
    });
    server = s;
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  }
  return { serve, seen };
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(`${JSON.stringify(body)}\n`);
}

/** A JSON-RPC 2.0 answer carrying `result`, with the request's id. */
export function rpc(result: unknown): Answer {
  return (_req, res, body) => json(res, 200, { jsonrpc: '2.0', result, id: (JSON.parse(body) as { id: unknown }).id });
}

/** The NodeApiError a call fails with (the test fails when it succeeds or throws anything else). */
export async function failure(p: Promise<unknown>): Promise<NodeApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NodeApiError);
  return err as NodeApiError;
}
