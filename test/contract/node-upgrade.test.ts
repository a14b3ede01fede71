import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeVersionInfoReply, protocolNumber } from '../../src/rules/node-upgrade/read.js';
import { GetNodeVersionReply, goValue, type GenOptions } from './node-go.js';

// node-upgrade's read of info.getNodeVersion held to AvalancheGo's reply struct (node-go.ts,
// api/info/service.go GetNodeVersionReply): every value Go can write is read, the protocol
// (json.Uint32, quoted or bare) as its number, the VM map as written (null: no map).

const RUNS = Number(process.env['AVAWATCH_CONTRACT_NODE_RUNS'] ?? 150);
const SEED = process.env['AVAWATCH_CONTRACT_NODE_SEED'] === undefined ? 20_260_822 : Number(process.env['AVAWATCH_CONTRACT_NODE_SEED']);
const options: fc.Arbitrary<GenOptions> = fc.record({ bare: fc.boolean(), extra: fc.boolean() });

describe('node-upgrade reads info.getNodeVersion as AvalancheGo writes it', () => {
  it('version, rpcProtocolVersion and vmVersions of every GetNodeVersionReply', () => {
    fc.assert(
      fc.property(
        options.chain((o) => goValue(GetNodeVersionReply, o)),
        (text) => {
          const raw = JSON.parse(text) as { version: string; rpcProtocolVersion: string | number; vmVersions: Record<string, string> | null };
          const got = nodeVersionInfoReply.parse(raw);
          expect(got.version).toBe(raw.version.slice(0, 120));
          expect(protocolNumber(got.rpcProtocolVersion)).toBe(Number(raw.rpcProtocolVersion));
          if (raw.vmVersions === null) expect(got.vmVersions).toBeUndefined();
          else expect(Object.values(got.vmVersions ?? {})).toEqual(Object.values(raw.vmVersions).slice(0, 64).map((v) => v.slice(0, 120)));
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
