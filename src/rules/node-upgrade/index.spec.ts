import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { json, nodeServer } from '../../../test/helpers/node-server.js';
import { advance, type ActiveAlert } from '../../alerts/lifecycle.js';
import { HttpNodeApi } from '../../api/node-api.js';
import { systemClock } from '../../base/clock.js';
import type { ObserveContext } from '../types.js';
import { nodeUpgrade } from './index.js';
import { spec as specSchema, type State } from './schema.js';

// The kind against a loopback server answering /ext/health and /ext/info as AvalancheGo does
// (api/info/service.go, api/health), on a fake clock: each poll is evaluated at the time the
// test gives, through the alert lifecycle as the engine does. What the operator
// reads, on observations given directly: operator.spec.ts.

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const CHAIN = '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5';
const HELICON_MAINNET = Date.parse('2026-09-22T15:00:00Z') / 1000;
const DAY = 86_400;
const before = (seconds: number) => new Date((HELICON_MAINNET - seconds) * 1000);
const { serve } = nodeServer();

/** What the emulated node answers; tests change it between polls. */
interface Node {
  version: string;
  protocol: unknown;
  vms: Record<string, string>;
  /** info.upgrades' heliconTime. */
  helicon: string;
  /** Health checks failing: name → error. */
  failing: Record<string, string>;
}
const v1142 = (): Node => ({ version: 'avalanchego/1.14.2', protocol: '45', vms: { avm: 'v1.14.2', evm: 'v0.15.3', platform: 'v1.14.2', dexvm: 'v1.14.2' }, helicon: '9999-12-01T00:00:00Z', failing: {} });
const v1150 = (): Node => ({ version: 'avalanchego/1.15.0', protocol: '46', vms: { avm: 'v1.15.0', evm: 'v1.15.0', platform: 'v1.15.0', dexvm: 'v1.15.0' }, helicon: '2026-09-22T15:00:00Z', failing: {} });

async function emulate(node: Node): Promise<string> {
  return serve((req, res, body) => {
    if (req.url === '/ext/health') {
      const checks = Object.fromEntries(
        ['network', 'C', CHAIN].map((name) => [name, node.failing[name] === undefined ? { message: {}, timestamp: '2026-09-01T00:00:00Z', duration: 1000, contiguousFailures: 0, timeOfFirstFailure: null } : { error: { message: node.failing[name] }, timestamp: '2026-09-01T00:00:00Z', duration: 1000, contiguousFailures: 3, timeOfFirstFailure: '2026-09-01T00:00:00Z' }]),
      );
      const healthy = Object.keys(node.failing).length === 0;
      return json(res, healthy ? 200 : 503, { checks, healthy });
    }
    const call = JSON.parse(body) as { method: string; id: number };
    const results: Record<string, unknown> = {
      'info.getNodeVersion': { version: node.version, databaseVersion: 'v1.4.5', rpcProtocolVersion: node.protocol, gitCommit: 'abc', vmVersions: node.vms },
      'info.upgrades': { durangoTime: '2024-03-06T16:00:00Z', etnaTime: '2024-12-16T17:00:00Z', fortunaTime: '2025-04-08T15:00:00Z', graniteTime: '2025-11-19T16:00:00Z', heliconTime: node.helicon },
    };
    json(res, 200, { jsonrpc: '2.0', result: results[call.method], id: call.id });
  });
}

/** Polls at each time, changing the node before each as `step` says; returns what each poll sent (state alerts and events). */
async function run(over: Record<string, unknown>, node: Node, times: Date[], step: (i: number, n: Node) => void = () => undefined) {
  const base = await emulate(node);
  const s = specSchema.parse({ urls: { [NODE]: base }, ...over });
  // Loopback: a generous deadline, as a busy machine's first call also loads undici (the timeout is not what is tested).
  const api = new HttpNodeApi({ timeoutMs: 15_000, clock: systemClock });
  let states: ReadonlyMap<string, State> = new Map();
  let active: ActiveAlert[] = [];
  const out = [];
  for (const [i, now] of times.entries()) {
    step(i, node);
    const ctx = { node: api, signal: new AbortController().signal, now, previous: states } as unknown as ObserveContext;
    const o = await nodeUpgrade.observe(s, ctx);
    const r = nodeUpgrade.evaluate(states, o, now, s);
    states = r.states;
    const next = advance(active, r.conditions ?? [], now.getTime(), undefined, (key) => r.resolvedAs?.(key));
    active = next.active;
    out.push({
      sent: [...r.alerts.map((a) => `event ${a.severity ?? '-'}: ${a.summary}`), ...next.notifications.map((n) => `${n.status} ${n.severity ?? '-'}: ${n.summary}`)],
      failed: r.failed,
      gauges: nodeUpgrade.samples(s, states, now).map((g) => `${g.metric}{${Object.values(g.labels).slice(2).join(',')}} ${g.value}`),
    });
  }
  return out;
}

const DEX = { l1s: [{ name: 'Dexalot', chain: CHAIN, vm: 'dexvm' }] };

describe('node-upgrade', () => {
  it('a node that refused an L1 plugin after its restart: one critical naming the chain, the plugin and the node’s protocol', async () => {
    const mismatch = `failed to create chain on subnet 2nFd…: protocol version mismatch. AvalancheGo version avalanchego/1.15.0 implements RPCChainVM protocol version 46. The VM located at /plugins/dexvm implements RPCChainVM protocol version 45.`;
    const steps = await run(DEX, v1142(), [before(30 * DAY), new Date((HELICON_MAINNET + DAY) * 1000)], (i, n) => {
      if (i === 1) Object.assign(n, v1150(), { vms: { avm: 'v1.15.0', evm: 'v1.15.0', platform: 'v1.15.0' }, failing: { [CHAIN]: mismatch } });
    });
    // Warned before: the node was upgraded, the plugin was not.
    expect(steps[0]?.sent).toEqual([expect.stringMatching(/^firing warning: .*L1 Dexalot's plugin dexvm v1\.14\.2 speaks RPCChainVM protocol 45; AvalancheGo 1\.15\.0, needed by Helicon, speaks 46/)]);
    expect(steps[1]?.sent).toEqual([
      `firing critical: ${NODE}: L1 Dexalot (chain ${CHAIN}) is not running on this node: its plugin dexvm (v1.14.2 when last loaded) was not loaded (a plugin of another RPCChainVM protocol is the usual cause; this node speaks 46)`,
      `resolved warning: ${NODE}: plugin dexvm is not loaded now`,
    ]);
    expect(steps[1]?.gauges).toContain(`avawatch_node_chain_plugin_loaded{${CHAIN},dexvm} 0`);
    expect(steps[0]?.gauges).toContain(`avawatch_node_chain_plugin_loaded{${CHAIN},dexvm} 1`);
  });

  it('a VM missing while its chain passes, or a chain failing with its VM loaded, is not this critical', async () => {
    const steps = await run(DEX, v1150(), [before(-DAY), before(-DAY - 60)], (i, n) => {
      if (i === 0) n.vms = { platform: 'v1.15.0' };
      else Object.assign(n, v1150(), { failing: { [CHAIN]: 'not yet run' } });
    });
    expect(steps.map((s) => s.sent)).toEqual([[], []]);
  });

  it('before the upgrade, a plugin whose protocol the needed release does not speak: a warning naming both', async () => {
    const node = { ...v1142(), vms: { ...v1142().vms, dexvm: 'v0.8.0@4f2a9c1', othervm: 'v1.14.2' } };
    const [step] = await run(DEX, node, [before(20 * DAY)]);
    expect(step?.sent).toEqual([
      `firing warning: ${NODE}: L1 Dexalot's plugin dexvm v0.8.0@4f2a9c1 speaks RPCChainVM protocol 44; AvalancheGo 1.15.0, needed by Helicon, speaks 46: update the plugin first (a plugin of another protocol is not loaded once the node runs 1.15.0)`,
      `firing warning: ${NODE}: Plugin othervm v1.14.2 speaks RPCChainVM protocol 45; AvalancheGo 1.15.0, needed by Helicon, speaks 46: update the plugin first (a plugin of another protocol is not loaded once the node runs 1.15.0)`,
    ]);
    expect(step?.gauges).toEqual(
      expect.arrayContaining(['avawatch_node_plugin_protocol{dexvm} 44', 'avawatch_node_plugin_compatible{dexvm} 0', 'avawatch_node_rpc_protocol{} 45', `avawatch_node_upgrade_seconds_until{helicon} ${20 * DAY}`, 'avawatch_node_upgrade_known{helicon} 0']),
    );
  });

  it('compatible: a node that knows the activation and plugins that speak its release’s protocol are quiet', async () => {
    const steps = await run(DEX, v1150(), [before(20 * DAY), before(12 * 3_600)]);
    expect(steps.map((s) => s.sent)).toEqual([[], []]);
    expect(steps[1]?.gauges).toEqual(expect.arrayContaining(['avawatch_node_plugin_compatible{dexvm} 1', 'avawatch_node_upgrade_known{helicon} 1', 'avawatch_node_rpc_protocol{} 46']));
    expect(steps[1]?.failed).toEqual({});
  });

  it('a clock moving toward the activation: quiet, then a warning a week before, then critical a day before; the activation passed, it is node-health’s', async () => {
    const node = { ...v1142(), vms: { avm: 'v1.14.2', platform: 'v1.14.2', evm: 'v0.15.3' } };
    const steps = await run({}, node, [before(8 * DAY), before(7 * DAY - 60), before(2 * DAY), before(DAY - 60), before(-60)]);
    expect(steps.map((s) => s.sent)).toEqual([
      [],
      [`firing warning: ${NODE}: Helicon activates on mainnet at 2026-09-22T15:00:00Z (in 6d 23h), and AvalancheGo 1.14.2 schedules it not at all: upgrade to AvalancheGo 1.15.0 or later before then`],
      [],
      [`firing critical: ${NODE}: Helicon activates on mainnet at 2026-09-22T15:00:00Z (in 23h 59m), and AvalancheGo 1.14.2 schedules it not at all: upgrade to AvalancheGo 1.15.0 or later before then`],
      [`resolved critical: ${NODE}: its build schedules Helicon at the network's time now`],
    ]);
  });

  it('a node upgraded during the countdown resolves it', async () => {
    const steps = await run({}, { ...v1142(), vms: {} }, [before(3 * DAY), before(3 * DAY - 600)], (i, n) => i === 1 && Object.assign(n, v1150(), { vms: {} }));
    expect(steps[0]?.sent[0]).toMatch(/^firing warning: .*Helicon activates on mainnet/);
    expect(steps[1]?.sent).toEqual([`resolved warning: ${NODE}: its build schedules Helicon at the network's time now`]);
  });

  it('bad input is said once, never a page: a version that is none, a protocol that is not a number, an unknown plugin version, a compatibility file that does not parse', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-compat-'));
    const broken = join(dir, 'compatibility.json');
    writeFileSync(broken, '{"46": "v1.15.0"');
    const node = { ...v1150(), version: 'banana', protocol: 'forty-six', vms: { platform: 'v1.15.0', dexvm: 'v9.9.9' } };
    const steps = await run({ ...DEX, compatibility: broken }, node, [before(20 * DAY), before(20 * DAY - 60), before(20 * DAY - 120)]);
    expect(steps[0]?.sent).toHaveLength(4);
    expect(steps[0]?.sent).toEqual(
      expect.arrayContaining([
        `event info: ${NODE}: info.getNodeVersion's version "banana" holds no version: the next activation is judged by info.upgrades alone`,
        `event info: ${NODE}: info.getNodeVersion's rpcProtocolVersion "forty-six" is not a number: the node's RPCChainVM protocol is unknown`,
        `event info: ${NODE}: plugin dexvm v9.9.9 is in no compatibility table: its RPCChainVM protocol is unknown (add its release to a \`compatibility:\` file)`,
        expect.stringMatching(new RegExp(`^event info: compatibility file ${broken.replace(/[.]/g, '\\.')} is not used: .*JSON.*; the shipped copy \\(AvalancheGo v1\\.15\\.0-fuji's\\) is$`)),
      ]),
    );
    expect(steps.slice(1).map((s) => s.sent)).toEqual([[], []]);
  });

  it('"go1.22.8 avalanche/1.13.0" is a version; a plugin table of its own in a compatibility file is read before the shipped one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-compat-'));
    const own = join(dir, 'dexvm.json');
    writeFileSync(own, JSON.stringify({ rpcChainVMProtocolVersion: { 'v0.3.1': 46 } }));
    const node = { ...v1150(), version: 'go1.22.8 avalanche/1.15.0', vms: { platform: 'v1.15.0', dexvm: 'v0.3.1' } };
    const [step] = await run({ ...DEX, compatibility: [own] }, node, [before(20 * DAY)]);
    expect(step?.sent).toEqual([]);
    expect(step?.gauges).toContain('avawatch_node_plugin_compatible{dexvm} 1');
  });

  it('a node whose API does not answer fails its lookup and keeps what it said', async () => {
    const s = specSchema.parse({ urls: { [NODE]: 'http://127.0.0.1:1' } });
    const api = new HttpNodeApi({ timeoutMs: 500, clock: systemClock });
    const ctx = { node: api, signal: new AbortController().signal, now: before(DAY), previous: new Map() } as unknown as ObserveContext;
    const previous = new Map<string, State>([[NODE, { version: 'avalanchego/1.14.2', upgrades: { helicon: 253_402_300_800 } }]]);
    const r = nodeUpgrade.evaluate(previous, await nodeUpgrade.observe(s, ctx), before(DAY - 60), s);
    expect(Object.keys(r.failed ?? {})).toEqual([NODE]);
    expect(r.states.get(NODE)?.version).toBe('avalanchego/1.14.2');
    // What it said last still counts down.
    expect(r.conditions?.map((c) => c.severity)).toEqual(['critical']);
  });
});
