import { describe, expect, it } from 'vitest';
import type { NodeApi } from '../../api/node-api.js';
import { nodeVersionInfo, nodeVersionInfoReply, protocolNumber } from './read.js';

// info.getNodeVersion as the kind reads it: the node's text bounded, its odd values kept for the
// kind to say (never a failed read); and the RPCChainVM protocol number.

const read = (reply: Record<string, unknown>) => nodeVersionInfoReply.parse({ version: 'avalanchego/1.15.0', ...reply });

describe('node-upgrade reads info.getNodeVersion', () => {
  it('asks POST /ext/info for info.getNodeVersion with no params, and reads its version, protocol and VMs', async () => {
    const calls: string[] = [];
    const api = {
      rpc: (base: string, path: string, method: string, params: unknown, schema: typeof nodeVersionInfoReply) => {
        calls.push(`${base} ${path} ${method} ${JSON.stringify(params)}`);
        return Promise.resolve(schema.parse({ version: 'avalanchego/1.15.0', databaseVersion: 'v1.4.5', rpcProtocolVersion: '46', gitCommit: 'abc', vmVersions: { subnetevm: 'v0.8.0' } }));
      },
    } as unknown as NodeApi;
    expect(await nodeVersionInfo(api, 'http://10.0.0.5:9650', new AbortController().signal)).toEqual({ version: 'avalanchego/1.15.0', rpcProtocolVersion: '46', vmVersions: { subnetevm: 'v0.8.0' } });
    expect(calls).toEqual(['http://10.0.0.5:9650 /ext/info info.getNodeVersion {}']);
  });

  it("the node's text clipped: a version and a VM's name and version to 120 characters, 64 VMs", () => {
    const long = 'x'.repeat(500);
    const vms = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`vm${i}`, `v1.0.${i}`]));
    const r = read({ version: long, vmVersions: { [long]: long, ...vms } });
    expect(r.version).toBe('x'.repeat(120));
    expect(Object.keys(r.vmVersions ?? {})).toHaveLength(64);
    expect(r.vmVersions?.['x'.repeat(120)]).toBe('x'.repeat(120));
    expect(read({ version: 'x'.repeat(120) }).version).toHaveLength(120);
  });

  it('a version that is not text is said as text; a VM map that is none, or absent, is no map; any VM name is only a name', () => {
    expect(read({ vmVersions: { a: 7, b: null, c: { v: 1 } } }).vmVersions).toEqual({ a: '7', b: 'null', c: '[object Object]' });
    expect(read({ vmVersions: { a: 'y'.repeat(130), b: 1e200, c: ['z'.repeat(130)] } }).vmVersions).toEqual({ a: 'y'.repeat(120), b: '1e+200', c: 'z'.repeat(120) });
    expect(read({}).vmVersions).toBeUndefined();
    expect(read({ vmVersions: null }).vmVersions).toBeUndefined();
    expect(read({ vmVersions: ['a'] }).vmVersions).toBeUndefined();
    expect(read({ vmVersions: 'a' }).vmVersions).toBeUndefined();
    expect(read({ vmVersions: {} }).vmVersions).toEqual({});
    expect(Object.keys(nodeVersionInfoReply.parse(JSON.parse('{"version":"v","vmVersions":{"__proto__":"v1.0.0"}}')).vmVersions ?? {})).toEqual(['__proto__']);
    expect(read({ rpcProtocolVersion: { odd: 1 } }).rpcProtocolVersion).toEqual({ odd: 1 });
  });

  it('an answer without a version is not one', () => {
    expect(nodeVersionInfoReply.safeParse({ version: '' }).success).toBe(false);
    expect(nodeVersionInfoReply.safeParse({}).success).toBe(false);
  });

  it('the protocol: a json.Uint32, quoted or bare; anything else is none', () => {
    expect([protocolNumber('46'), protocolNumber(46), protocolNumber('0'), protocolNumber(0), protocolNumber('4294967295'), protocolNumber(4_294_967_295)]).toEqual([46, 46, 0, 0, 4_294_967_295, 4_294_967_295]);
    for (const bad of ['4294967296', 4_294_967_296, '12345678901', -1, '-1', 4.5, '4.5', ' 46', '46 ', '4e1', '', 'x46', '46x', ['46'], null, undefined, Number.NaN, Infinity, true]) {
      expect(protocolNumber(bad), String(bad)).toBeUndefined();
    }
  });
});
