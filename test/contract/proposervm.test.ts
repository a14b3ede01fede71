import fc from 'fast-check';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { rpcEnvelope } from '../../src/api/node-schemas.js';
import { epochReply, heightReply } from '../../src/rules/proposervm.js';
import { SimClock } from '../../src/sim/clock.js';
import { scenarioSchema } from '../../src/sim/scenario.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { World } from '../../src/sim/world.js';
import { AVALANCHEGO, conformance, GetEpochResponse, GetHeightResponse, goValue, rpcResponse, type GenOptions } from './node-go.js';

// An L1's frozen-view calls held to AvalancheGo's source (node-go.ts): the simulator answers
// with the Go structs' encodings, and avawatch's readers take every answer Go can write.

const RUNS = Number(process.env['AVAWATCH_CONTRACT_NODE_RUNS'] ?? 150);
const SEED = process.env['AVAWATCH_CONTRACT_NODE_SEED'] === undefined ? 20_261_129 : Number(process.env['AVAWATCH_CONTRACT_NODE_SEED']);
const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const L1_CHAIN = '2tsLsNQUZfZnqDD9WBhTyj2XyMcmSGJHWTo7qFrVqzaiWvWbjN';

let sim: SimServer | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function post(path: string, method: string): Promise<string> {
  const res = await request(`${sim?.url}/node/${NODE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }) });
  return res.body.text();
}

function expectGo(text: string, type: Parameters<typeof conformance>[1]): void {
  expect(text.endsWith('}\n'), 'Go encoder ends the body with a newline').toBe(true);
  expect(conformance(JSON.parse(text), rpcResponse(type))).toEqual([]);
}

describe(`an L1's proposervm and the P-Chain's heights as ${AVALANCHEGO.version} answers them`, () => {
  it('proposervm.getCurrentEpoch and getProposedHeight at /ext/bc/<L1>/proposervm; platform.getHeight and getProposedHeight at /ext/bc/P: json.Uint64 fields', async () => {
    const start = '2026-08-22T00:00:00Z';
    sim = await startSim({ world: new World(new SimClock(Date.parse(start), 0)), scenario: scenarioSchema.parse({ start, speed: 0, world: { nodes: [{ nodeId: NODE, l1Chains: { [L1_CHAIN]: {} } }] } }) });
    expectGo(await post(`/ext/bc/${L1_CHAIN}/proposervm`, 'proposervm.getCurrentEpoch'), GetEpochResponse);
    expectGo(await post(`/ext/bc/${L1_CHAIN}/proposervm`, 'proposervm.getProposedHeight'), GetHeightResponse);
    expectGo(await post('/ext/bc/P', 'platform.getHeight'), GetHeightResponse);
    expectGo(await post('/ext/bc/P', 'platform.getProposedHeight'), GetHeightResponse);
  });
});

const options: fc.Arbitrary<GenOptions> = fc.record({ bare: fc.boolean(), extra: fc.boolean() });

describe(`avawatch's readers (src/rules/proposervm.ts) take every answer ${AVALANCHEGO.version}'s source can write`, () => {
  const answers = (type: Parameters<typeof goValue>[0]) => options.chain((o) => goValue(rpcResponse(type), o));
  const exact = (v: unknown) => Number.isSafeInteger(Number(v));

  it('GetEpochResponse: read exactly, bare or quoted; a field beyond 2^53 is no reading (never a rounded height)', () => {
    fc.assert(
      fc.property(answers(GetEpochResponse), (t) => {
        const result = rpcEnvelope.parse(JSON.parse(t)).result as Record<string, unknown> | undefined;
        if (result === undefined || result === null) return;
        const got = epochReply.safeParse(result);
        expect(got.success).toBe(exact(result['number']) && exact(result['startTime']) && exact(result['pChainHeight']));
        if (got.success) expect(got.data).toEqual({ number: Number(result['number']), startTime: Number(result['startTime']), pChainHeight: Number(result['pChainHeight']) });
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('GetHeightResponse: read exactly, bare or quoted; beyond 2^53 no reading', () => {
    fc.assert(
      fc.property(answers(GetHeightResponse), (t) => {
        const result = rpcEnvelope.parse(JSON.parse(t)).result as Record<string, unknown> | undefined;
        if (result === undefined || result === null) return;
        const got = heightReply.safeParse(result);
        expect(got.success).toBe(exact(result['height']));
        if (got.success) expect(got.data).toBe(Number(result['height']));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("the service.md example reads as written", () => {
    expect(epochReply.parse({ number: '56', startTime: '1755802182', pChainHeight: '21857141' })).toEqual({ number: 56, startTime: 1_755_802_182, pChainHeight: 21_857_141 });
  });
});
