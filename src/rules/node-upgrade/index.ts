import type { AlertDraft, Evaluation, GaugeSample, RuleKind } from '../types.js';
import { byUrls, keepKeys } from '../spread.js';
import { isFailed } from '../lookup.js';
import { nextUpgrade } from '../network.js';
import { parseVersion } from '../semver.js';
import { checks, knows, nextActivation, presentOf, type Next } from './checks.js';
import { protocolOf, type Table } from './compatibility.js';
import { observeNodes, type NodeReading, type Observation } from './observe.js';
import { BUILT_IN_VMS, protocolNumber } from './read.js';
import { spec, state, type Spec, type State } from './schema.js';

// Readiness for the network's next upgrade, per node, from its own API: does its build know
// the next activation (a countdown: warning a week before, critical a day before), does each
// RPCChainVM plugin speak the protocol of the release that activation needs, and, after a
// restart, is each declared L1 chain's plugin loaded. docs/node.md tells how it sits beside
// node-health (which judges the upgrades the network has already activated).

const MAX_NAME = 120;
const MAX_UPGRADES = 64;

const labelsOf = (node: string, s: Spec) => ({ network: s.network, node_id: node });

export const nodeUpgrade: RuleKind<Spec, Observation, State> = {
  kind: 'node-upgrade',
  keyDetails: ['Activation', 'Plugin version', 'Node protocol', 'Version'],
  labelNames: ['node', 'network', 'check', 'upgrade', 'vm', 'chain'],
  spec,
  selects: ['urls'],
  readsNodes: true,
  state,
  spread: {
    ...byUrls(),
    // The notices stay on the full spec's first node, whichever part holds it.
    narrow: (s, keep) => ({ ...s, urls: keepKeys(s.urls, keep) ?? {}, noticeOn: s.noticeOn ?? Object.keys(s.urls)[0] }),
  },
  gauges: [
    { name: 'avawatch_node_upgrade_seconds_until', help: "Seconds until the network's next upgrade activates (its built-in schedule, or the config's), by name.", labelNames: ['rule', 'network', 'node_id', 'upgrade'] },
    { name: 'avawatch_node_upgrade_known', help: "1 when the node's build schedules the network's next upgrade at the network's time, 0 when not.", labelNames: ['rule', 'network', 'node_id', 'upgrade'] },
    { name: 'avawatch_node_rpc_protocol', help: "The node's RPCChainVM protocol (info.getNodeVersion rpcProtocolVersion).", labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_node_plugin_protocol', help: 'The RPCChainVM protocol a loaded plugin speaks, from its version (compatibility tables).', labelNames: ['rule', 'network', 'node_id', 'vm'] },
    { name: 'avawatch_node_plugin_compatible', help: "1 when a loaded plugin speaks the protocol it must (the next upgrade's release's, else the node's), 0 when not.", labelNames: ['rule', 'network', 'node_id', 'vm'] },
    { name: 'avawatch_node_chain_plugin_loaded', help: "1 while a declared L1 chain's VM is loaded (listed in vmVersions), 0 when not.", labelNames: ['rule', 'network', 'node_id', 'chain', 'vm'] },
  ],

  observe: observeNodes,

  evaluate(previous, o, now, s) {
    const nowS = Math.floor(now.getTime() / 1000);
    const result: Evaluation<State> = { states: new Map(), alerts: [], conditions: [], failed: {} };
    const next = nextActivation(s, nowS, o.tables);
    const nodes = Object.keys(s.urls);
    result.resolvedAs = (key) => presentOf(key, result.states.get(key.slice(0, key.indexOf(':'))), next);
    for (const node of nodes) {
      const before = previous.get(node);
      const st: State = structuredClone(before ?? {});
      const seen = o.nodes[node];
      if (seen === undefined || isFailed(seen)) {
        (result.failed as Record<string, string>)[node] = seen?.failed ?? 'not read';
      } else {
        const failures = readNode(st, seen, s);
        if (failures.length > 0) (result.failed as Record<string, string>)[node] = failures.join('; ');
      }
      judgePlugins(st, next, o.tables);
      // Bad input is said once, while it lasts; the compatibility files once a rule, on its first node.
      const notices = noticesOf(node, st, s, node === (s.noticeOn ?? nodes[0]) ? o.tableErrors : {});
      const said = new Set(before?.said ?? []);
      for (const [key, alert] of notices) if (!said.has(key)) result.alerts.push(alert);
      if (notices.size > 0) st.said = [...notices.keys()];
      else delete st.said;
      result.states.set(node, st);
      result.conditions?.push(...checks(node, st, s, nowS, next, o.tables));
    }
    return result;
  },

  samples(s, states, now) {
    const nowS = now.getTime() / 1000;
    const n = nextUpgrade(s.network, nowS, s.upgrades);
    const out: GaugeSample[] = [];
    for (const [node, st] of states) {
      const labels = labelsOf(node, s);
      if (n) {
        out.push({ metric: 'avawatch_node_upgrade_seconds_until', labels: { ...labels, upgrade: n.upgrade }, value: Math.max(0, Math.round(n.at - nowS)) });
        const known = knows(st, { ...n, release: '', protocol: undefined });
        if (known !== undefined) out.push({ metric: 'avawatch_node_upgrade_known', labels: { ...labels, upgrade: n.upgrade }, value: known ? 1 : 0 });
      }
      if (st.protocol !== undefined) out.push({ metric: 'avawatch_node_rpc_protocol', labels, value: st.protocol });
      for (const [vm, p] of Object.entries(st.protocols ?? {})) out.push({ metric: 'avawatch_node_plugin_protocol', labels: { ...labels, vm }, value: p });
      for (const [vm, ok] of Object.entries(st.compatible ?? {})) out.push({ metric: 'avawatch_node_plugin_compatible', labels: { ...labels, vm }, value: ok ? 1 : 0 });
      if (st.vms !== undefined) for (const l1 of s.l1s) out.push({ metric: 'avawatch_node_chain_plugin_loaded', labels: { ...labels, chain: l1.chain, vm: l1.vm }, value: st.vms[l1.vm] === undefined ? 0 : 1 });
    }
    return out;
  },

  describe(s) {
    const n = Object.keys(s.urls).length;
    const parts = [
      `${s.network}, ${n === 1 ? "1 node's own API" : `${n} nodes' own APIs`}: the next activation against each build (warning ${roughDays(s.warnBefore)} before, critical ${roughDays(s.criticalBefore)} before)`,
      "each plugin's RPCChainVM protocol against the release it needs",
    ];
    if (s.l1s.length > 0) parts.push(`${s.l1s.length} L1 chain(s) whose plugin must be loaded`);
    if (s.compatibility.length > 0) parts.push(`compatibility from ${s.compatibility.join(', ')} before the shipped copy`);
    return parts.join(', ');
  },

  cost(s) {
    // /ext/health, info.getNodeVersion, info.upgrades.
    return { calls: [], nodeCalls: Object.keys(s.urls).length * 3 };
  },
};

function roughDays(ms: number): string {
  return ms % 86_400_000 === 0 ? `${ms / 86_400_000}d` : `${Math.round(ms / 3_600_000)}h`;
}

/**
 * What the node said. A call that fails keeps the last figures (and fails the node: a stale
 * figure is seen as stale); the info API switched off (404) leaves them unknown, as node-health says.
 */
function readNode(st: State, r: NodeReading, s: Spec): string[] {
  const failures: string[] = [];
  if ('ok' in r.version) {
    const v = r.version.ok;
    st.version = v.version;
    const p = protocolNumber(v.rpcProtocolVersion);
    if (p === undefined) {
      delete st.protocol;
      st.badProtocol = JSON.stringify(v.rpcProtocolVersion ?? null).slice(0, 40);
    } else {
      st.protocol = p;
      delete st.badProtocol;
    }
    if (v.vmVersions === undefined) delete st.vms;
    else {
      st.vms = Object.fromEntries(Object.entries(v.vmVersions).filter(([vm]) => !BUILT_IN_VMS.has(vm)));
      const loaded = { ...st.lastLoaded };
      for (const l1 of s.l1s) if (st.vms[l1.vm] !== undefined) loaded[l1.vm] = st.vms[l1.vm] as string;
      if (Object.keys(loaded).length > 0) st.lastLoaded = loaded;
    }
  } else if (r.version.error.kind === 'off') {
    for (const k of ['version', 'protocol', 'badProtocol', 'vms'] as const) delete st[k];
  } else failures.push(r.version.error.message);

  if ('ok' in r.upgrades) st.upgrades = Object.fromEntries(Object.entries(r.upgrades.ok).slice(0, MAX_UPGRADES).map(([k, t]) => [k.slice(0, MAX_NAME), t]));
  else if (r.upgrades.error.kind === 'off') delete st.upgrades;
  else failures.push(r.upgrades.error.message);

  if (r.health === 'off') delete st.chainsFailing;
  else {
    const failing: Record<string, string> = {};
    const declared = new Set(s.l1s.map((l) => l.chain));
    for (const c of r.health.checks) if (declared.has(c.name) && c.error !== undefined) failing[c.name] = c.error.slice(0, 500);
    st.chainsFailing = failing;
  }
  return failures;
}

/** Each plugin's protocol, and whether it speaks the one it must: the next activation's release's, or (none ahead) the node's. */
function judgePlugins(st: State, next: Next | undefined, tables: readonly Table[]): void {
  const protocols: Record<string, number> = {};
  const compatible: Record<string, boolean> = {};
  const must = next?.protocol ?? st.protocol;
  for (const [vm, version] of Object.entries(st.vms ?? {})) {
    const p = protocolOf(version, tables);
    if (p === undefined) continue;
    protocols[vm] = p;
    if (must !== undefined) compatible[vm] = p === must;
  }
  st.protocols = protocols;
  st.compatible = compatible;
}

/** Bad input of this node (and the rule's compatibility files), by a key that changes with it. */
function noticesOf(node: string, st: State, s: Spec, tableErrors: Record<string, string>): Map<string, AlertDraft> {
  const out = new Map<string, AlertDraft>();
  const notice = (key: string, summary: string, details: Record<string, string>) =>
    out.set(key, { status: 'event', severity: 'info', news: 'neutral', subject: node, summary, labels: { node, network: s.network, check: 'input' }, details: { Node: node, ...details } });
  if (st.version !== undefined && !parseVersion(st.version)) {
    notice(`version:${st.version}`, `${node}: info.getNodeVersion's version "${st.version}" holds no version: the next activation is judged by info.upgrades alone`, { Version: st.version });
  }
  if (st.badProtocol !== undefined) {
    notice(`protocol:${st.badProtocol}`, `${node}: info.getNodeVersion's rpcProtocolVersion ${st.badProtocol} is not a number: the node's RPCChainVM protocol is unknown`, { 'rpcProtocolVersion': st.badProtocol });
  }
  for (const [vm, version] of Object.entries(st.vms ?? {})) {
    if (st.protocols?.[vm] !== undefined) continue;
    notice(`plugin:${vm}:${version}`, `${node}: plugin ${vm} ${version} is in no compatibility table: its RPCChainVM protocol is unknown (add its release to a \`compatibility:\` file)`, { VM: vm, 'Plugin version': version });
  }
  for (const [file, why] of Object.entries(tableErrors)) {
    notice(`compatibility:${file}:${why}`, `compatibility file ${file} is not used: ${why}; the shipped copy (AvalancheGo v1.15.0-fuji's) is`, { File: file, Error: why });
  }
  return out;
}
