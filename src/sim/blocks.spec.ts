import { afterEach, describe, expect, it } from 'vitest';
import { SimClock } from './clock.js';
import { applyChange, worldChange } from './scenario.js';
import { startSim, type SimServer } from './server.js';
import { World } from './world.js';

// Proposed blocks and the signature aggregator, over loopback HTTP on a frozen clock.

const NOW_MS = Date.parse('2026-03-02T12:00:00Z');
const NOW = NOW_MS / 1000;
const N = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const TX = '2sJ6UoPSrqkpdcNWvNFnudjRJdvxVLdXgDaGGD4mfhJm5aULHF';

let sim: SimServer | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function simWith(change: Record<string, unknown>): Promise<SimServer> {
  const world = new World(new SimClock(NOW_MS, 0));
  applyChange(world, worldChange.parse(change), NOW_MS);
  sim = await startSim({ world });
  return sim;
}

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${sim?.url}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const times = (body: Record<string, unknown>) => (body['blocks'] as Array<{ blockTimestamp: number }>).map((b) => b.blockTimestamp - NOW);

describe('simulated proposed blocks', () => {
  it('lists a node’s blocks on the chain asked, newest first, up to now, within start and end; chainInfo names that chain', async () => {
    await simWith({
      proposedBlocks: [
        { nodeId: N, chain: 'c-chain', times: ['-2h', '-10m', '+1h'] },
        { nodeId: N, chain: 'c-chain', perHour: 2, from: '-1h' },
        { nodeId: N, chain: 'p-chain', times: ['-5m'] },
      ],
    });
    const all = await get(`/v1/networks/mainnet/blockchains/c-chain/nodes/${N}/blocks?pageSize=100`);
    expect(times(all.body)).toEqual([0, -600, -1800, -3600, -7200]);
    expect(all.body['chainInfo']).toEqual({ chainName: 'c-chain', network: 'mainnet' });
    const hour = await get(`/v1/networks/mainnet/blockchains/2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5/nodes/${N}/blocks?startTimestamp=${NOW - 3600}&endTimestamp=${NOW - 60}`);
    expect(times(hour.body)).toEqual([-600, -1800, -3600]);
    const p = await get(`/v1/networks/mainnet/blockchains/p-chain/nodes/${N}/blocks`);
    expect([times(p.body), p.body['chainInfo']]).toEqual([[-300], { chainName: 'p-chain', network: 'mainnet' }]);
    expect(times((await get(`/v1/networks/mainnet/blockchains/x-chain/nodes/${N}/blocks`)).body)).toEqual([]);
  });

  it('pages them; a node that stops proposing lists nothing newer; an unknown chain is a 400', async () => {
    await simWith({ proposedBlocks: [{ nodeId: N, chain: 'c-chain', perHour: 60, from: '-1h' }] });
    const first = await get(`/v1/networks/mainnet/blockchains/c-chain/nodes/${N}/blocks?pageSize=50`);
    expect(times(first.body)).toHaveLength(50);
    const rest = await get(`/v1/networks/mainnet/blockchains/c-chain/nodes/${N}/blocks?pageSize=50&pageToken=${String(first.body['nextPageToken'])}`);
    expect([times(rest.body).length, rest.body['nextPageToken']]).toEqual([11, undefined]);
    applyChange(sim!.world, worldChange.parse({ stopProposing: { nodeId: N } }), NOW_MS);
    sim!.world.clock.advance(3_600_000);
    expect(times((await get(`/v1/networks/mainnet/blockchains/c-chain/nodes/${N}/blocks?pageSize=1`)).body)).toEqual([0]);
    expect((await get(`/v1/networks/mainnet/blockchains/d-chain/nodes/${N}/blocks`)).status).toBe(400);
  });
});

describe('simulated signature aggregator', () => {
  it('answers 201 with a signed message, or the status the world sets in the service’s error shape', async () => {
    await simWith({ signatureAggregator: { txHash: TX, fail: 503 } });
    expect(await get(`/v1/signatureAggregator/mainnet/aggregateSignatures/${TX}`)).toEqual({
      status: 503,
      body: { message: 'Failed to aggregate signatures: not enough stake weight signed the message', error: 'Service Unavailable', statusCode: 503 },
    });
    applyChange(sim!.world, worldChange.parse({ signatureAggregator: { txHash: TX, fail: null, latencyMs: 150 } }), NOW_MS);
    const started = Date.now();
    const ok = await get(`/v1/signatureAggregator/mainnet/aggregateSignatures/${TX}`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect([ok.status, typeof ok.body['signedMessage']]).toEqual([201, 'string']);
  });
});
