import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { systemClock } from '../../base/clock.js';
import { HttpClient } from '../http.js';
import { AreaReader } from './reader.js';

const agent = new Agent();
const PRIMARY = { name: 'primary network', prefix: '/v1/networks/{network}/' };
/** Only the fields a kind would read: the rest of an item is dropped. */
const blockchain = z.object({ blockchainId: z.string(), evmChainId: z.number().optional() });

describe('AreaReader: the generic get and list a kind calls from its own folder', () => {
  let server: Server | undefined;
  const urls: string[] = [];
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = undefined;
    urls.length = 0;
  });

  /** A service answering each path from `pages` (by pageToken, '' for the first), else its own 404. */
  async function reader(pages: Record<string, unknown>, maxPages = 3): Promise<AreaReader> {
    server = createServer((req, res) => {
      urls.push(req.url ?? '');
      const url = new URL(req.url ?? '', 'http://x');
      const body = pages[`${url.pathname}?${url.searchParams.get('pageToken') ?? ''}`];
      if (body === undefined) res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found","statusCode":404,"error":"Not Found"}');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const http = new HttpClient({ api: 'data', baseUrl, dispatcher: agent, headers: {}, timeoutMs: 2_000, maxResponseBytes: 1_000_000, retries: 0, backoffInitialMs: 1, backoffMaxMs: 1, maxRetryAfterMs: 1, clock: systemClock });
    return new AreaReader(http, { pageSize: 50, maxPages }, PRIMARY);
  }
  const request = { endpoint: '/v1/networks/{network}/blockchains/{blockchainId}/chains', params: { network: 'fuji', blockchainId: 'a/b' }, items: 'chains', item: blockchain };
  const PATH = '/v1/networks/fuji/blockchains/a%2Fb/chains';

  it('fills the template URL-encoded, reads every page with the caller schema, and keeps only its fields', async () => {
    const data = await reader({ [`${PATH}?`]: { chains: [{ blockchainId: 'c1', vmId: 'x' }], nextPageToken: 't2' }, [`${PATH}?t2`]: { chains: [{ blockchainId: 'c2', evmChainId: 7 }] } });
    await expect(data.list({ ...request, query: { sortOrder: 'desc' } })).resolves.toEqual({ items: [{ blockchainId: 'c1' }, { blockchainId: 'c2', evmChainId: 7 }], complete: true });
    expect(urls).toEqual([`${PATH}?pageSize=50&sortOrder=desc`, `${PATH}?pageSize=50&sortOrder=desc&pageToken=t2`]);
  });

  it('past maxPages: fails, or with `partial` returns the pages read as incomplete', async () => {
    const data = await reader({ [`${PATH}?`]: { chains: [{ blockchainId: 'c1' }], nextPageToken: 't2' }, [`${PATH}?t2`]: { chains: [{ blockchainId: 'c2' }], nextPageToken: 't3' } }, 1);
    await expect(data.list(request)).rejects.toThrow(`data API GET ${PATH}: more than 1 pages; raise api.maxPages or narrow the rule`);
    await expect(data.list({ ...request, partial: true })).resolves.toEqual({ items: [{ blockchainId: 'c1' }], complete: false });
    await expect(data.list({ ...request, maxPages: 2, partial: true, enough: (page) => page.some((c) => c.blockchainId === 'c2') })).resolves.toEqual({
      items: [{ blockchainId: 'c1' }, { blockchainId: 'c2' }],
      complete: true,
    });
  });

  it('names the endpoint and the field of an answer that breaks the schema', async () => {
    const data = await reader({ [`${PATH}?`]: { chains: [{ blockchainId: 'c1' }, { blockchainId: 7 }] } });
    await expect(data.list(request)).rejects.toThrow(`data API ${PATH}: unexpected response: chains.1.blockchainId: Invalid input: expected string, received number`);
  });

  it("answers not-found for the service's own 404 only when asked, and only to a list's first page", async () => {
    const data = await reader({ [`${PATH}?`]: { chains: [], nextPageToken: 'gone' } });
    await expect(data.get({ endpoint: '/v1/networks/{network}/nothing', params: { network: 'fuji' }, schema: blockchain, notFound: true })).resolves.toBe('not-found');
    await expect(data.get({ endpoint: '/v1/networks/{network}/nothing', params: { network: 'fuji' }, schema: blockchain })).rejects.toThrow('HTTP 404: not found');
    await expect(data.list({ ...request, notFound: true })).rejects.toThrow('HTTP 404: not found');
  });

  it('refuses an endpoint of another area, a missing value, and a `.` or `..` segment, before any call', async () => {
    const data = await reader({});
    await expect(data.get({ endpoint: '/v1/icm/addresses/{address}/messages', params: { address: 'a' }, schema: blockchain })).rejects.toThrow(
      '/v1/icm/addresses/{address}/messages is not in the primary network area (/v1/networks/{network}/…): ask the reader of its area',
    );
    await expect(data.list({ ...request, params: { network: 'fuji' } })).rejects.toThrow('/v1/networks/{network}/blockchains/{blockchainId}/chains: no value for {blockchainId}');
    await expect(data.list({ ...request, params: { network: 'fuji', blockchainId: '..' } })).rejects.toThrow('data API: blockchainId ".." cannot be asked for');
    expect(urls).toEqual([]);
  });
});
