import { describe, expect, it } from 'vitest';
import { advance, type ActiveAlert } from '../../alerts/lifecycle.js';
import { NodeApiError } from '../../api/node-api.js';
import { nodeUpgrade } from './index.js';
import type { NodeReading, Observation } from './observe.js';
import { spec as specSchema, type State } from './schema.js';

// The kind evaluated on observations given directly (what observe would return), through the
// lifecycle: what the operator reads. Against a loopback node: index.spec.ts.

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const CHAIN = '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5';
const HELICON_MAINNET = Date.parse('2026-09-22T15:00:00Z') / 1000;
const DAY = 86_400;
const before = (seconds: number) => new Date((HELICON_MAINNET - seconds) * 1000);
const DEX = { l1s: [{ name: 'Dexalot', chain: CHAIN, vm: 'dexvm' }] };

describe('node-upgrade: what the operator reads', () => {
  const HELICON = HELICON_MAINNET;
  const ok = <T>(v: T) => ({ ok: v });
  const reading = (over: Partial<NodeReading> = {}): NodeReading => ({
    health: { healthy: true, checks: [] },
    version: ok({ version: 'avalanchego/1.14.2', rpcProtocolVersion: '45', vmVersions: { platform: 'v1.14.2' } }),
    upgrades: ok({ durango: 1_709_740_800, etna: 1_734_368_400, fortuna: 1_744_124_400, granite: 1_763_568_000, helicon: 253_399_622_400 }),
    ...over,
  });
  function steps(over: Record<string, unknown>, readings: Array<NodeReading | { failed: string }>, times: Date[], tables: Observation['tables'] = []) {
    const s = specSchema.parse({ urls: { [NODE]: 'http://10.0.0.5:9650' }, ...over });
    let states: ReadonlyMap<string, State> = new Map();
    let active: ActiveAlert[] = [];
    return readings.map((r, i) => {
      const now = times[i] as Date;
      const out = nodeUpgrade.evaluate(states, { nodes: { [NODE]: r }, tables, tableErrors: {} }, now, s);
      states = out.states;
      const next = advance(active, out.conditions ?? [], now.getTime(), undefined, (key) => out.resolvedAs?.(key));
      active = next.active;
      return { ...out, s, now, sent: [...out.alerts.map((a) => `event ${a.severity ?? '-'}: ${a.summary}`), ...next.notifications.map((n) => `${n.status} ${n.severity ?? '-'}: ${n.summary}`)] };
    });
  }

  it('the activation alert: its schedule in words, its details, its labels; Fuji names the -fuji release', () => {
    const dated = reading({ upgrades: ok({ helicon: HELICON + 3_600 }) });
    const [a] = steps({}, [dated], [before(3 * DAY)]);
    const [c] = a?.conditions ?? [];
    expect(c?.summary).toBe(`${NODE}: Helicon activates on mainnet at 2026-09-22T15:00:00Z (in 3d), and AvalancheGo 1.14.2 schedules it at 2026-09-22T16:00:00Z: upgrade to AvalancheGo 1.15.0 or later before then`);
    expect([c?.key, c?.subject, c?.severity, c?.tier, c?.labels]).toEqual([`${NODE}:activation:helicon`, NODE, 'warning', 'warning', { node: NODE, network: 'mainnet', check: 'activation', upgrade: 'helicon' }]);
    expect(c?.details).toEqual({ Upgrade: 'Helicon', Activation: '2026-09-22T15:00:00Z', 'Needed release': 'AvalancheGo 1.15.0', Version: 'avalanchego/1.14.2' });
    const missing = steps({}, [reading({ upgrades: ok({ granite: 1_763_568_000 }), version: ok({ version: 'banana', rpcProtocolVersion: '45', vmVersions: undefined }) })], [before(DAY)]);
    expect(missing[0]?.conditions?.map((x) => [x.severity, x.summary])).toEqual([
      ['critical', `${NODE}: Helicon activates on mainnet at 2026-09-22T15:00:00Z (in 1d), and its build does not know it: upgrade to AvalancheGo 1.15.0 or later before then`],
    ]);
    const off = { error: new NodeApiError('HTTP 404', 'off') };
    const byVersion = steps({ network: 'fuji' }, [reading({ upgrades: off })], [new Date((Date.parse('2026-07-28T15:00:00Z') / 1000 - 2 * 3_600) * 1000)]);
    expect(byVersion[0]?.conditions?.map((x) => [x.summary, x.details['Needed release']])).toEqual([
      [`${NODE}: Helicon activates on fuji at 2026-07-28T15:00:00Z (in 2h), and AvalancheGo 1.14.2 is older than 1.15.0: upgrade to AvalancheGo 1.15.0 or later before then`, 'AvalancheGo 1.15.0 (1.15.0-fuji on Fuji)'],
    ]);
  });

  it('the countdown at its edges: exactly warnBefore is a warning, a second more is quiet; exactly criticalBefore is critical', () => {
    const at = (left: number) => before(left);
    const r = steps({ warnBefore: '2d', criticalBefore: '1h' }, [reading(), reading(), reading(), reading()], [at(2 * DAY + 1), at(2 * DAY), at(3_601), at(3_600)]);
    expect(r.map((x) => x.conditions?.map((c) => c.severity))).toEqual([[], ['warning'], ['warning'], ['critical']]);
  });

  it('a time the build gives that does not parse tells nothing (no alert, no gauge); the version tells when the upgrades do not', () => {
    const r = steps({}, [reading({ upgrades: ok({ helicon: -1 }) })], [before(DAY)]);
    expect(r[0]?.conditions).toEqual([]);
    expect(nodeUpgrade.samples(r[0]!.s, r[0]!.states, before(DAY)).map((g) => g.metric)).not.toContain('avawatch_node_upgrade_known');
    const off = { error: new NodeApiError('HTTP 404', 'off') };
    const newer = steps({}, [reading({ upgrades: off, version: ok({ version: 'avalanchego/1.15.0', rpcProtocolVersion: '46', vmVersions: {} }) })], [before(DAY)]);
    expect(newer[0]?.conditions).toEqual([]);
    const older = steps({}, [reading({ upgrades: off })], [before(DAY)]);
    expect(older[0]?.conditions?.map((c) => c.severity)).toEqual(['critical']);
  });

  it('a plugin warning resolves saying what is now: the plugin updated, or no upgrade ahead', () => {
    const vms = (dexvm: string) => reading({ version: ok({ version: 'avalanchego/1.14.2', rpcProtocolVersion: '45', vmVersions: { dexvm } }), upgrades: ok({ helicon: HELICON }) });
    const updated = steps({}, [vms('v1.14.2'), vms('v1.15.0')], [before(3 * DAY), before(3 * DAY - 60)]);
    expect(updated[0]?.conditions?.map((c) => [c.labels, c.details])).toEqual([
      [{ node: NODE, network: 'mainnet', check: 'plugin', vm: 'dexvm' }, { VM: 'dexvm', 'Plugin version': 'v1.14.2', 'Plugin protocol': '45', 'Needed release': 'AvalancheGo 1.15.0', 'Its protocol': '46', 'Node protocol': '45' }],
    ]);
    expect(updated[1]?.sent).toEqual([`resolved warning: ${NODE}: plugin dexvm v1.15.0 speaks protocol 46 now, as AvalancheGo 1.15.0 does`]);
    const passed = steps({}, [vms('v1.14.2'), vms('v1.14.2')], [before(3 * DAY), before(-60)]);
    expect(passed[1]?.sent).toEqual([`resolved warning: ${NODE}: no upgrade is ahead; plugin dexvm v1.14.2 is loaded and speaks protocol 45`]);
    const unknown = steps({}, [vms('v1.14.2'), vms('v9.9.9')], [before(3 * DAY), before(-60)]);
    expect(unknown[1]?.sent).toContain(`resolved warning: ${NODE}: no upgrade is ahead; plugin dexvm v9.9.9 is loaded`);
  });

  it('a node that speaks the needed protocol already is not warned of its plugins (it loaded only those that speak it); a node of unknown protocol is', () => {
    const vms = (version: Record<string, unknown>) => reading({ version: ok({ version: 'avalanchego/1.15.0', vmVersions: { dexvm: 'v1.14.2' }, ...version }), upgrades: ok({ helicon: HELICON }) });
    expect(steps({}, [vms({ rpcProtocolVersion: '46' })], [before(3 * DAY)])[0]?.conditions).toEqual([]);
    const unknown = steps({}, [vms({ rpcProtocolVersion: 'x' })], [before(3 * DAY)])[0]?.conditions ?? [];
    expect(unknown.map((c) => [c.key, c.details])).toEqual([[`${NODE}:plugin:dexvm`, { VM: 'dexvm', 'Plugin version': 'v1.14.2', 'Plugin protocol': '45', 'Needed release': 'AvalancheGo 1.15.0', 'Its protocol': '46' }]]);
    expect(unknown[0]?.resolvedSummary).toBe(`${NODE}: plugin dexvm no longer lags the protocol Helicon needs`);
  });

  it('a plugin warning of an L1 carries its chain; resolved by an update, its details say the new version; by a version in no table or the info API off, nothing is claimed', () => {
    const dex = (dexvm: string | undefined) =>
      reading({ version: dexvm === undefined ? { error: new NodeApiError('HTTP 404', 'off') } : ok({ version: 'avalanchego/1.14.2', rpcProtocolVersion: '45', vmVersions: { dexvm } }), upgrades: ok({ helicon: HELICON }) });
    const updated = steps(DEX, [dex('v1.14.2'), dex('v1.15.0')], [before(3 * DAY), before(3 * DAY - 60)]);
    expect(updated[0]?.conditions?.[0]?.labels).toEqual({ node: NODE, network: 'mainnet', check: 'plugin', vm: 'dexvm', chain: CHAIN });
    expect(updated[1]?.resolvedAs?.(`${NODE}:plugin:dexvm`)).toEqual({ summary: `${NODE}: plugin dexvm v1.15.0 speaks protocol 46 now, as AvalancheGo 1.15.0 does`, details: { 'Plugin version': 'v1.15.0', 'Plugin protocol': '46' } });
    const unknown = steps(DEX, [dex('v1.14.2'), dex('v9.9.9')], [before(3 * DAY), before(3 * DAY - 60)]);
    expect(unknown[1]?.conditions).toEqual([]);
    expect(unknown[1]?.sent).toContain(`resolved warning: ${NODE}: plugin dexvm no longer lags the protocol Helicon needs`);
    const off = steps(DEX, [dex('v1.14.2'), dex(undefined)], [before(3 * DAY), before(3 * DAY - 60)]);
    expect(off[1]?.sent).toEqual([`resolved warning: ${NODE}: plugin dexvm no longer lags the protocol Helicon needs`]);
  });

  it('before the upgrade, a plugin in no table is said once as input, never warned of as lagging', () => {
    const r = steps({}, [reading({ version: ok({ version: 'avalanchego/1.14.2', rpcProtocolVersion: '45', vmVersions: { dexvm: 'v9.9.9' } }), upgrades: ok({ helicon: HELICON }) })], [before(3 * DAY)]);
    expect(r[0]?.conditions).toEqual([]);
    expect(r[0]?.sent).toEqual([expect.stringMatching(/^event info: .*plugin dexvm v9\.9\.9 is in no compatibility table/)]);
  });

  it('an empty info.upgrades tells nothing: the version judges (a node on the needed release is quiet)', () => {
    const r = steps({}, [reading({ version: ok({ version: 'avalanchego/1.15.0', rpcProtocolVersion: '46', vmVersions: {} }), upgrades: ok({}) })], [before(DAY)]);
    expect(r[0]?.conditions).toEqual([]);
    const older = steps({}, [reading({ upgrades: ok({}) })], [before(DAY)]);
    expect(older[0]?.conditions?.map((c) => c.summary)).toEqual([`${NODE}: Helicon activates on mainnet at 2026-09-22T15:00:00Z (in 1d), and AvalancheGo 1.14.2 does not know it: upgrade to AvalancheGo 1.15.0 or later before then`]);
  });

  it('a failing chain with the info API off is not said to lack its plugin: nothing tells which VMs are loaded', () => {
    const failing = { healthy: false, checks: [{ name: CHAIN, error: 'chain not running', contiguousFailures: 3 }] };
    const off = { error: new NodeApiError('HTTP 404', 'off') };
    const r = steps(DEX, [reading({ health: failing, version: off })], [before(-DAY)]);
    expect(r[0]?.conditions).toEqual([]);
  });

  it('an L1 whose plugin was not loaded names the version it last had, and resolves when it is loaded again', () => {
    const failing = { healthy: false, checks: [{ name: CHAIN, error: 'chain not running', contiguousFailures: 3 }] };
    const loaded = (dexvm: string | undefined, health: NodeReading['health']) =>
      reading({ health, version: ok({ version: 'avalanchego/1.15.0', rpcProtocolVersion: '46', vmVersions: Object.fromEntries(dexvm === undefined ? [] : [['dexvm', dexvm]]) }) });
    const r = steps(DEX, [loaded('v1.15.0', { healthy: true, checks: [] }), loaded(undefined, failing), loaded('v1.14.2', { healthy: true, checks: [] })], [before(-DAY), before(-DAY - 60), before(-DAY - 120)]);
    const [c] = r[1]?.conditions ?? [];
    expect(c?.summary).toBe(`${NODE}: L1 Dexalot (chain ${CHAIN}) is not running on this node: its plugin dexvm (v1.15.0 when last loaded) was not loaded (a plugin of another RPCChainVM protocol is the usual cause; this node speaks 46)`);
    expect(c?.details).toEqual({ Chain: CHAIN, VM: 'dexvm', 'Last loaded': 'v1.15.0', 'Node protocol': '46', 'Health check': 'chain not running' });
    expect(r[2]?.sent).toEqual([`resolved critical: ${NODE}: L1 Dexalot's plugin dexvm is loaded again`]);
    expect(r[2]?.states.get(NODE)?.lastLoaded).toEqual({ dexvm: 'v1.14.2' });
  });

  it('no upgrade ahead: a plugin is judged against the node\'s own protocol, and its gauge says so', () => {
    const r = steps({}, [reading({ version: ok({ version: 'avalanchego/1.15.0', rpcProtocolVersion: '46', vmVersions: { a: 'v1.15.0', b: 'v1.14.2' } }) })], [before(-DAY)]);
    const g = nodeUpgrade.samples(r[0]!.s, r[0]!.states, before(-DAY));
    expect(g.filter((x) => x.metric === 'avawatch_node_plugin_compatible').map((x) => [x.labels['vm'], x.value])).toEqual([
      ['a', 1],
      ['b', 0],
    ]);
    expect(g.map((x) => x.metric)).not.toContain('avawatch_node_upgrade_seconds_until');
    expect(r[0]?.conditions).toEqual([]);
  });

  it('the VMs built into AvalancheGo are no plugins, by alias or by ID: neither judged nor said', () => {
    const builtIn = { platform: 'v1.14.2', avm: 'v1.14.2', evm: 'v0.15.3', rWhpuQPF1kb72esV2momhMuTYGkEb1oL29pt2EBXWmSy4kxnT: 'v9.9.9', jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq: 'v9.9.9', mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6: 'v9.9.9' };
    const r = steps({}, [reading({ version: ok({ version: 'avalanchego/1.14.2', rpcProtocolVersion: '45', vmVersions: { ...builtIn, dexvm: 'v1.14.2' } }), upgrades: ok({ helicon: HELICON }) })], [before(3 * DAY)]);
    expect(r[0]?.states.get(NODE)?.vms).toEqual({ dexvm: 'v1.14.2' });
    expect(r[0]?.sent).toEqual([expect.stringContaining(`${NODE}: Plugin dexvm v1.14.2 speaks RPCChainVM protocol 45`)]);
  });

  it('gauges: seconds until the upgrade, whether the build knows it, each plugin and chain', () => {
    const r = steps(DEX, [reading({ version: ok({ version: 'avalanchego/1.14.2', rpcProtocolVersion: '45', vmVersions: { dexvm: 'v1.14.2', avm: 'v1.14.2' } }) })], [before(100)]);
    const labels = { network: 'mainnet', node_id: NODE };
    expect(nodeUpgrade.samples(r[0]!.s, r[0]!.states, before(100))).toEqual([
      { metric: 'avawatch_node_upgrade_seconds_until', labels: { ...labels, upgrade: 'helicon' }, value: 100 },
      { metric: 'avawatch_node_upgrade_known', labels: { ...labels, upgrade: 'helicon' }, value: 0 },
      { metric: 'avawatch_node_rpc_protocol', labels, value: 45 },
      { metric: 'avawatch_node_plugin_protocol', labels: { ...labels, vm: 'dexvm' }, value: 45 },
      { metric: 'avawatch_node_plugin_compatible', labels: { ...labels, vm: 'dexvm' }, value: 0 },
      { metric: 'avawatch_node_chain_plugin_loaded', labels: { ...labels, chain: CHAIN, vm: 'dexvm' }, value: 1 },
    ]);
    for (const g of nodeUpgrade.samples(r[0]!.s, r[0]!.states, before(100))) {
      const declared = nodeUpgrade.gauges?.find((d) => d.name === g.metric);
      expect(declared?.labelNames, g.metric).toEqual(['rule', ...Object.keys(g.labels)]);
      expect(declared?.help.length, g.metric).toBeGreaterThan(20);
    }
    expect(nodeUpgrade.samples(r[0]!.s, r[0]!.states, before(0.4)).find((g) => g.metric === 'avawatch_node_upgrade_seconds_until')?.value).toBe(0);
  });

  it('a chain not loaded names its node protocol and last version in details; without a last load, none', () => {
    const failing = { healthy: false, checks: [{ name: CHAIN, error: 'chain not running', contiguousFailures: 3 }, { name: 'other', error: 'x', contiguousFailures: 1 }] };
    const r = steps(DEX, [reading({ health: failing, version: ok({ version: 'avalanchego/1.15.0', rpcProtocolVersion: '46', vmVersions: {} }) })], [before(-DAY)]);
    expect(r[0]?.conditions?.map((c) => [c.key, c.severity, c.labels, c.details, c.summary])).toEqual([
      [
        `${NODE}:not-loaded:${CHAIN}`,
        'critical',
        { node: NODE, network: 'mainnet', check: 'not-loaded', chain: CHAIN, vm: 'dexvm' },
        { Chain: CHAIN, VM: 'dexvm', 'Node protocol': '46', 'Health check': 'chain not running' },
        `${NODE}: L1 Dexalot (chain ${CHAIN}) is not running on this node: its plugin dexvm was not loaded (a plugin of another RPCChainVM protocol is the usual cause; this node speaks 46)`,
      ],
    ]);
    expect(r[0]?.states.get(NODE)?.chainsFailing).toEqual({ [CHAIN]: 'chain not running' });
    const noName = steps({ l1s: [{ chain: CHAIN, vm: 'dexvm' }] }, [reading({ health: failing, version: ok({ version: 'avalanchego/1.15.0', rpcProtocolVersion: 'x', vmVersions: {} }) })], [before(-DAY)]);
    expect(noName[0]?.conditions?.map((c) => c.summary)).toEqual([`${NODE}: L1 ${CHAIN} (chain ${CHAIN}) is not running on this node: its plugin dexvm was not loaded (a plugin of another RPCChainVM protocol is the usual cause)`]);
    const healthOff = steps(DEX, [reading({ health: failing, version: ok({ version: 'avalanchego/1.15.0', rpcProtocolVersion: '46', vmVersions: {} }) }), reading({ health: 'off', version: ok({ version: 'avalanchego/1.15.0', rpcProtocolVersion: '46', vmVersions: {} }) })], [before(-DAY), before(-DAY - 60)]);
    expect(healthOff[1]?.states.get(NODE)?.chainsFailing).toBeUndefined();
    expect(healthOff[1]?.conditions).toEqual([]);
  });

  it('a failed read fails the node and keeps its figures; the info API off forgets them', () => {
    const broken = { error: new NodeApiError('timeout', 'unreachable') };
    const off = { error: new NodeApiError('HTTP 404', 'off') };
    const r = steps({}, [reading(), reading({ version: broken, upgrades: broken }), reading({ version: off, upgrades: off }), { failed: '/ext/health: x' }], [before(DAY * 3), before(DAY * 3 - 60), before(DAY * 3 - 120), before(DAY * 3 - 180)]);
    expect(r.map((x) => x.failed)).toEqual([{}, { [NODE]: 'timeout; timeout' }, {}, { [NODE]: '/ext/health: x' }]);
    expect(r[1]?.states.get(NODE)).toMatchObject({ version: 'avalanchego/1.14.2', protocol: 45, upgrades: expect.objectContaining({ helicon: 253_399_622_400 }) });
    const gone = r[2]?.states.get(NODE);
    expect([gone?.version, gone?.protocol, gone?.vms, gone?.upgrades]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("the node's text cut to size: 64 upgrades, names of 120 characters; a protocol that is none said once", () => {
    const upgrades = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`u${i}${'x'.repeat(200)}`, 1]));
    const r = steps({}, [reading({ upgrades: ok(upgrades), version: ok({ version: 'avalanchego/1.14.2', rpcProtocolVersion: { x: 'y'.repeat(100) }, vmVersions: {} }) }), reading()], [before(DAY * 3), before(DAY * 3 - 60)]);
    const names = Object.keys(r[0]?.states.get(NODE)?.upgrades ?? {});
    expect([names.length, names.every((n) => n.length === 120)]).toEqual([64, true]);
    expect(r[0]?.states.get(NODE)?.badProtocol).toBe(`{"x":"${'y'.repeat(34)}`);
    expect(r[0]?.sent.filter((x) => x.startsWith('event'))).toEqual([`event info: ${NODE}: info.getNodeVersion's rpcProtocolVersion {"x":"${'y'.repeat(34)} is not a number: the node's RPCChainVM protocol is unknown`]);
    expect(r[1]?.states.get(NODE)?.badProtocol).toBeUndefined();
    expect(r[1]?.states.get(NODE)?.said).toBeUndefined();
    const none = steps({}, [reading({ version: ok({ version: 'avalanchego/1.14.2', vmVersions: {} }) })], [before(DAY * 3)]);
    expect(none[0]?.states.get(NODE)?.badProtocol).toBe('null');
  });

  it('bad input on a second node is said for it; the compatibility files only once, with the first node', () => {
    const OTHER = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
    const s = specSchema.parse({ urls: { [NODE]: 'http://a:9650', [OTHER]: 'http://b:9650' } });
    const bad = reading({ version: ok({ version: 'banana', rpcProtocolVersion: '45', vmVersions: {} }) });
    const r = nodeUpgrade.evaluate(new Map(), { nodes: { [NODE]: bad, [OTHER]: bad }, tables: [], tableErrors: { '/etc/c.json': 'cannot read it (ENOENT)' } }, before(DAY * 3), s);
    expect(r.alerts.map((a) => [a.subject, a.severity, a.news, a.labels['check'], a.summary])).toEqual([
      [NODE, 'info', 'neutral', 'input', `${NODE}: info.getNodeVersion's version "banana" holds no version: the next activation is judged by info.upgrades alone`],
      [NODE, 'info', 'neutral', 'input', "compatibility file /etc/c.json is not used: cannot read it (ENOENT); the shipped copy (AvalancheGo v1.15.0-fuji's) is"],
      [OTHER, 'info', 'neutral', 'input', `${OTHER}: info.getNodeVersion's version "banana" holds no version: the next activation is judged by info.upgrades alone`],
    ]);
    expect(r.alerts[1]?.details).toEqual({ Node: NODE, File: '/etc/c.json', Error: 'cannot read it (ENOENT)' });
    expect(r.alerts[0]?.details).toEqual({ Node: NODE, Version: 'banana' });
  });

  it('bad input changed is said again, each with its details; the same again is not', () => {
    const bad = (v: string) => reading({ version: ok({ version: `banana-${v}`, rpcProtocolVersion: `p${v}`, vmVersions: { dexvm: `v9.9.${v}` } }) });
    const s = specSchema.parse({ urls: { [NODE]: 'http://a:9650' } });
    const at1 = nodeUpgrade.evaluate(new Map(), { nodes: { [NODE]: bad('1') }, tables: [], tableErrors: { '/etc/c.json': 'why 1' } }, before(DAY * 3), s);
    expect(at1.alerts.map((a) => [a.status, a.details])).toEqual([
      ['event', { Node: NODE, Version: 'banana-1' }],
      ['event', { Node: NODE, rpcProtocolVersion: '"p1"' }],
      ['event', { Node: NODE, VM: 'dexvm', 'Plugin version': 'v9.9.1' }],
      ['event', { Node: NODE, File: '/etc/c.json', Error: 'why 1' }],
    ]);
    const same = nodeUpgrade.evaluate(at1.states, { nodes: { [NODE]: bad('1') }, tables: [], tableErrors: { '/etc/c.json': 'why 1' } }, before(DAY * 3 - 60), s);
    expect(same.alerts).toEqual([]);
    const changed = nodeUpgrade.evaluate(at1.states, { nodes: { [NODE]: bad('2') }, tables: [], tableErrors: { '/etc/c.json': 'why 2' } }, before(DAY * 3 - 120), s);
    expect(changed.alerts.map((a) => a.summary)).toEqual([
      `${NODE}: info.getNodeVersion's version "banana-2" holds no version: the next activation is judged by info.upgrades alone`,
      `${NODE}: info.getNodeVersion's rpcProtocolVersion "p2" is not a number: the node's RPCChainVM protocol is unknown`,
      `${NODE}: plugin dexvm v9.9.2 is in no compatibility table: its RPCChainVM protocol is unknown (add its release to a \`compatibility:\` file)`,
      "compatibility file /etc/c.json is not used: why 2; the shipped copy (AvalancheGo v1.15.0-fuji's) is",
    ]);
  });

  it('the info API off: no protocol gauge and no chain-loaded gauge (nothing tells), and /metrics still answers', () => {
    const off = { error: new NodeApiError('HTTP 404', 'off') };
    const r = steps(DEX, [reading({ version: off })], [before(DAY * 3)]);
    const metrics = nodeUpgrade.samples(r[0]!.s, r[0]!.states, before(DAY * 3)).map((g) => g.metric);
    expect(metrics).not.toContain('avawatch_node_rpc_protocol');
    expect(metrics).not.toContain('avawatch_node_chain_plugin_loaded');
    expect(metrics).toContain('avawatch_node_upgrade_seconds_until');
  });

  it("a chain's health error is clipped to 500 characters in the critical's details", () => {
    const failing = { healthy: false, checks: [{ name: CHAIN, error: 'e'.repeat(800), contiguousFailures: 3 }] };
    const r = steps(DEX, [reading({ health: failing, version: ok({ version: 'avalanchego/1.15.0', rpcProtocolVersion: '46', vmVersions: {} }) })], [before(-DAY)]);
    expect(r[0]?.conditions?.[0]?.details['Health check']).toBe('e'.repeat(500));
  });

  it('describe and cost: what the rule checks, and its calls', () => {
    const s = specSchema.parse({ urls: { [NODE]: 'http://a:9650' }, ...DEX, compatibility: '/etc/c.json', warnBefore: '36h', criticalBefore: '1d' });
    expect(nodeUpgrade.describe(s)).toBe(
      "mainnet, 1 node's own API: the next activation against each build (warning 36h before, critical 1d before), each plugin's RPCChainVM protocol against the release it needs, 1 L1 chain(s) whose plugin must be loaded, compatibility from /etc/c.json before the shipped copy",
    );
    const two = specSchema.parse({ urls: { [NODE]: 'http://a:9650', 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ': 'http://b:9650' } });
    expect(nodeUpgrade.describe(two)).toBe("mainnet, 2 nodes' own APIs: the next activation against each build (warning 7d before, critical 1d before), each plugin's RPCChainVM protocol against the release it needs");
    expect(nodeUpgrade.cost(two)).toEqual({ calls: [], nodeCalls: 6 });
  });
});
