import { record } from '../../base/record.js';
import { PRIMARY_NETWORK } from '../fields.js';
import type { Evaluation, GaugeSample, RuleKind } from '../types.js';
import { byUrls } from '../spread.js';
import { currentPeriod, percentOrNone, toPeriod, validatorLookups } from '../validators.js';
import { checks, nextUpgradeOf, presentOf, stakeTier, verdict } from './checks.js';
import type { Read } from '../node-calls.js';
import { isFailed, isUnreachable, observeNodes, type NodeReading, type Observation } from './observe.js';
import { spec, state, type Spec, type State } from './schema.js';
import { nodeView } from './view.js';
import type { Seen } from '../validators.js';

/** One node's answer in the service's lists, once it is known not to have failed. */
type ServiceSeen = Exclude<Seen, { failed: string }>;
import { parseVersion } from '../semver.js';

// The operator's own node, read from inside (its health, info and uptime APIs), with the
// service's view of the same node beside it: when the API does not answer, the alert says
// whether the network still sees the node (docs/node.md has the table of cases).

/** Health checks kept per node, and the length of a name or error kept: the node's text is not ours to trust. */
const MAX_CHECKS = 64;
const MAX_NAME = 120;
const MAX_ERROR = 500;

const labelsOf = (node: string, s: Spec) => ({ network: s.network, node_id: node });

export const nodeHealth: RuleKind<Spec, Observation, State> = {
  kind: 'node-health',
  keyDetails: ['Version', 'Peers', 'Error', 'Weighted average uptime'],
  labelNames: ['node', 'network', 'check', 'view', 'health_check', 'chain', 'threshold'],
  spec,
  selects: ['urls', 'nodeIds'],
  readsNodes: true,
  state,
  spread: byUrls(['nodeIds']),
  gauges: [
    { name: 'avawatch_node_api_up', help: "1 when the node's own API answered at the last poll, 0 when it did not.", labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_node_health_checks_failing', help: "Health checks the node's /ext/health reports failing.", labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_node_health_check_failing', help: 'A failing health check of the node, by name (1 while it fails).', labelNames: ['rule', 'network', 'node_id', 'check'] },
    { name: 'avawatch_node_bootstrapped', help: 'info.isBootstrapped of a chain on the node (1 bootstrapped, 0 not).', labelNames: ['rule', 'network', 'node_id', 'chain'] },
    { name: 'avawatch_node_id_match', help: 'info.getNodeID on the node is the NodeID it is watched as (1) or another (0).', labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_node_version_info', help: 'AvalancheGo version the node reports (info.getNodeVersion; 1 for the version shown).', labelNames: ['rule', 'network', 'node_id', 'version'] },
    { name: 'avawatch_node_rewarding_stake_percent', help: 'info.uptime rewardingStakePercentage: stake that thinks the node meets the uptime requirement (percent).', labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_node_weighted_uptime_percent', help: 'info.uptime weightedAveragePercentage: stake-weighted uptime the network observes (percent).', labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_node_peers', help: "Peers the node is connected to (/ext/health's network check, connectedPeers; avalanche_network_peers while its health API is off).", labelNames: ['rule', 'network', 'node_id'] },
    { name: 'avawatch_node_next_upgrade_timestamp_seconds', help: "The next network upgrade the node's build schedules (info.upgrades), by name; none while nothing is scheduled.", labelNames: ['rule', 'network', 'node_id', 'upgrade'] },
  ],

  observe: observeNodes,
  nodeView,

  evaluate(previous, observation, now, s) {
    const nowS = Math.floor(now.getTime() / 1000);
    const result: Evaluation<State> = { states: new Map(), alerts: [], conditions: [], failed: record() };
    result.resolvedAs = (key) => presentOf(key, result.states.get(key.slice(0, key.indexOf(':'))), s);
    const service = observation.service;
    for (const [node, url] of Object.entries(s.urls)) {
      const before = previous.get(node);
      // A copy: `previous` is the engine's, never changed in place.
      const st: State = structuredClone(before ?? {});
      const fromService = service === undefined || isFailed(service) ? service : (service.get(node) ?? { failed: 'not in the lists read' });
      const blind = fromService !== undefined && isFailed(fromService);
      if (fromService !== undefined && !isFailed(fromService)) readService(st, fromService, before);

      const seen = observation.nodes[node];
      if (seen === undefined || isFailed(seen)) {
        // An answer that could not be read: what the node said last holds, and the rule says it failed.
        (result.failed as Record<string, string>)[node] = seen?.failed ?? 'not read';
      } else if (isUnreachable(seen)) {
        st.unreachable = seen.unreachable.slice(0, MAX_ERROR);
        if (st.unreachableSince === undefined) {
          st.unreachableSince = nowS;
          const uptime = before?.outside?.uptime ?? st.outside?.uptime;
          if (uptime !== undefined) st.uptimeAtLoss = uptime;
        }
      } else {
        const failures = readNode(st, seen, before);
        // Calls that failed kept their figures: the node is reported failing, its other figures judged.
        if (failures.length > 0) (result.failed as Record<string, string>)[node] = failures.slice(0, 3).join('; ');
        delete st.unreachable;
        delete st.unreachableSince;
        delete st.uptimeAtLoss;
      }
      if (st.unreachableSince === undefined) delete st.apiVerdict;
      else st.apiVerdict = verdict(st, s, blind);
      const tier = st.rewardingStake === undefined ? undefined : stakeTier(st.rewardingStake, before?.stakeTier, s);
      if (tier === undefined) delete st.stakeTier;
      else st.stakeTier = tier;
      result.states.set(node, st);
      result.conditions?.push(...checks(node, url, st, s, nowS));
    }
    return result;
  },

  samples(s, states, now) {
    const out: GaugeSample[] = [];
    for (const [node, st] of states) {
      const labels = labelsOf(node, s);
      out.push({ metric: 'avawatch_node_api_up', labels, value: st.unreachableSince === undefined ? 1 : 0 });
      // Health API off: no check is read, so no count of failing ones (those still held aside).
      if (st.failing !== undefined && !(st.off?.includes('health') && Object.keys(st.failing).length === 0)) {
        out.push({ metric: 'avawatch_node_health_checks_failing', labels, value: Object.keys(st.failing).length });
        for (const check of Object.keys(st.failing)) out.push({ metric: 'avawatch_node_health_check_failing', labels: { ...labels, check }, value: 1 });
      }
      for (const [chain, ok] of Object.entries(st.bootstrapped ?? {})) out.push({ metric: 'avawatch_node_bootstrapped', labels: { ...labels, chain }, value: ok ? 1 : 0 });
      if (st.nodeId !== undefined) out.push({ metric: 'avawatch_node_id_match', labels, value: st.nodeId === node ? 1 : 0 });
      if (st.version !== undefined) out.push({ metric: 'avawatch_node_version_info', labels: { ...labels, version: st.version }, value: 1 });
      if (st.rewardingStake !== undefined) out.push({ metric: 'avawatch_node_rewarding_stake_percent', labels, value: st.rewardingStake });
      if (st.weightedAverage !== undefined) out.push({ metric: 'avawatch_node_weighted_uptime_percent', labels, value: st.weightedAverage });
      if (st.peers !== undefined) out.push({ metric: 'avawatch_node_peers', labels, value: st.peers });
      const next = nextUpgradeOf(st, now.getTime() / 1000);
      if (next) out.push({ metric: 'avawatch_node_next_upgrade_timestamp_seconds', labels: { ...labels, upgrade: next.name }, value: next.at });
    }
    return out;
  },

  describe(s) {
    const n = Object.keys(s.urls).length;
    const parts = [`${s.network}, ${n === 1 ? "1 node's own API" : `${n} nodes' own APIs`}: health checks, bootstrapped on ${s.chains.join('/')}, NodeID`];
    if (s.outside !== false) parts.push('BLS key');
    if (s.minVersion) parts.push(`AvalancheGo ≥ ${s.minVersion}`);
    if (s.rewardingStake !== false) parts.push(`rewarding stake warning under ${s.rewardingStake.warning}%, critical under ${s.rewardingStake.critical}%`);
    if (s.minPeers !== false) parts.push(`peers ≥ ${s.minPeers}`);
    parts.push(s.outside === false ? 'an API that does not answer fires at the rule severity' : "an API that does not answer is judged with the service's view");
    return parts.join(', ');
  },

  cost(s) {
    const nodes = Object.keys(s.urls);
    // health (its peer count too), getNodeID, getNodeVersion, uptime, upgrades, and isBootstrapped
    // per chain; never info.peers. With the health API off, /ext/metrics for the peers too.
    const nodeCalls = nodes.length * (5 + s.chains.length);
    if (s.outside === false) return { calls: [], nodeCalls };
    return { ...validatorLookups({ network: s.network, nodeIds: [...new Set([...(s.nodeIds ?? []), ...nodes])], subnetId: PRIMARY_NETWORK }), nodeCalls };
  },
};

/** The service's view: its current period of the node (the same bookkeeping as the validator rules). */
function readService(st: State, seen: ServiceSeen, before: State | undefined): void {
  if (seen === 'unchanged') {
    st.outside = { active: false };
    return;
  }
  if (seen === 'not-found' || seen.length === 0) {
    st.period = before?.period ?? null;
    st.missing = true;
    st.outside = { active: false };
    return;
  }
  const p = currentPeriod(seen);
  // What this answer left out keeps the last value of the same validation only.
  const kept = before?.period?.txHash === p.txHash ? before.outside : undefined;
  st.period = toPeriod(p);
  st.missing = false;
  const active = p.validationStatus === 'active';
  const uptime = percentOrNone(p.uptimePerformance) ?? kept?.uptime;
  const reachability = percentOrNone(p.validatorHealth?.reachabilityPercent) ?? kept?.reachability;
  const bls = p.blsCredentials?.publicKey ?? kept?.bls;
  st.outside = { active, ...(active && uptime !== undefined ? { uptime } : {}), ...(active && reachability !== undefined ? { reachability } : {}), ...(bls !== undefined ? { bls } : {}) };
}

/** Answers in a row after which a figure the node keeps refusing, or a failing check it keeps leaving out, is gone. */
const GONE_AFTER = 3;

/**
 * What the node said. A call that failed keeps its figure's last value (and is returned, to
 * fail the node: a stale figure must be seen as stale); the node's own refusal (a JSON-RPC
 * error, e.g. "node is not a validator") clears the figure once it has refused GONE_AFTER
 * times in a row. So one odd answer neither fires nor resolves anything.
 */
function readNode(st: State, r: NodeReading, before: State | undefined): string[] {
  const failures: string[] = [];
  const failing: NonNullable<State['failing']> = {};
  const off = new Set<'health' | 'info'>();
  // Health API off: no check is listed, so a failing one is dropped after a few answers.
  if (r.health === 'off') off.add('health');
  const reported = r.health === 'off' ? [] : r.health.checks;
  const listed = new Set(reported.map((c) => c.name.slice(0, MAX_NAME)));
  for (const c of reported) {
    if (c.error === undefined || Object.keys(failing).length >= MAX_CHECKS) continue;
    failing[c.name.slice(0, MAX_NAME)] = { error: c.error.slice(0, MAX_ERROR), contiguousFailures: c.contiguousFailures, ...(c.timeOfFirstFailure !== undefined ? { since: c.timeOfFirstFailure } : {}) };
  }
  // A failing check this answer leaves out (neither passing nor failing) still fails, for a while.
  for (const [name, was] of Object.entries(before?.failing ?? {})) {
    if (listed.has(name) || (was.absent ?? 0) + 1 >= GONE_AFTER) continue;
    failing[name] = { ...was, absent: (was.absent ?? 0) + 1 };
  }
  st.failing = failing;

  const rpc: NonNullable<State['rpcErrors']> = {};
  /** `unknown`: what an API switched off leaves of the figure (default: as the node's refusal clears it). */
  const take = <T>(figure: string, read: Read<T>, set: (value: T) => void, clear: () => void, unknown = clear) => {
    if ('ok' in read) return set(read.ok);
    // The info API switched off is said, not a failed read; its figures go as refused ones do.
    if (read.error.kind === 'off') off.add('info');
    else if (read.error.kind !== 'rpc') return void failures.push(read.error.message);
    const count = (before?.rpcErrors?.[figure]?.count ?? 0) + 1;
    rpc[figure] = { count, error: read.error.message.slice(0, MAX_ERROR) };
    if (count >= GONE_AFTER) (read.error.kind === 'off' ? unknown : clear)();
  };
  take(
    'nodeId',
    r.identity,
    (id) => {
      st.nodeId = id.nodeId;
      if (id.blsPublicKey === undefined) delete st.bls;
      else st.bls = id.blsPublicKey;
    },
    () => undefined,
    () => {
      delete st.nodeId;
      delete st.bls;
    },
  );
  take(
    'version',
    r.version,
    (v) => {
      if (parseVersion(v)) st.version = v.slice(0, MAX_NAME);
    },
    () => delete st.version,
  );
  const booted: Record<string, boolean> = { ...st.bootstrapped };
  for (const [chain, read] of Object.entries(r.bootstrapped)) {
    // The node's own error, again and again (no chain of that alias or id): it does not run the chain.
    take(`bootstrapped:${chain}`, read, (ok) => (booted[chain] = ok), () => (booted[chain] = false), () => delete booted[chain]);
  }
  st.bootstrapped = booted;
  take(
    'uptime',
    r.uptime,
    (u) => {
      const rewarding = percentOrNone(u.rewardingStakePercentage);
      const weighted = percentOrNone(u.weightedAveragePercentage);
      if (rewarding !== undefined) st.rewardingStake = rewarding;
      if (weighted !== undefined) st.weightedAverage = weighted;
    },
    () => {
      delete st.rewardingStake;
      delete st.weightedAverage;
    },
  );
  take(
    'upgrades',
    r.upgrades,
    (u) => {
      // The node's text: only so many names, each short.
      st.upgrades = Object.fromEntries(Object.entries(u).slice(0, MAX_CHECKS).map(([k, v]) => [k.slice(0, MAX_NAME), v]));
    },
    () => delete st.upgrades,
  );
  // Not in what the node answered (its network check not run yet, health and metrics off): as a refusal, dropped after a few.
  if ('ok' in r.peers) st.peers = r.peers.ok;
  else {
    const count = (before?.rpcErrors?.['peers']?.count ?? 0) + 1;
    rpc['peers'] = { count, error: r.peers.unknown.slice(0, MAX_ERROR) };
    if (count >= GONE_AFTER) delete st.peers;
  }
  if (Object.keys(rpc).length > 0) st.rpcErrors = rpc;
  else delete st.rpcErrors;
  if (off.size > 0) st.off = [...off].sort();
  else delete st.off;
  return failures;
}
