import { humanDuration } from '../../base/duration.js';
import { isoSeconds } from '../format.js';
import type { Condition, Resolution } from '../types.js';
import { versionTooOld } from '../semver.js';
import { activation, UNSCHEDULED_S, UPGRADES, upgradeName } from '../network.js';
import { UNREADABLE } from './read.js';
import type { Spec, State, Verdict } from './schema.js';

// What holds for one node, from its state: a condition per check that is off. Keys are
// `NodeID:check` (`NodeID:health:<name>`, `NodeID:bootstrapped:<chain>`), stable across polls.

type Draft = Omit<Condition, 'key' | 'subject' | 'labels'> & { labels?: Record<string, string> };

/** The API's host and port: its path or credentials are never said. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the configured URL';
  }
}

const pct = (n: number) => `${Number(n.toFixed(2))}%`;

/** The chain as operators say it: C-chain, or an L1 chain's id. */
export function chainName(chain: string): string {
  return /^[PXC]$/.test(chain) ? `${chain}-chain` : `chain ${chain}`;
}

/** The network's view, in words: what an unreachable API's alert says of the node. */
export function outsideText(st: State): string {
  const o = st.outside;
  if (!o) return 'the service has not been read yet';
  if (!o.active) return 'the service lists no active validation of it';
  const parts = ['listed active'];
  if (o.uptime !== undefined) parts.push(`uptime ${pct(o.uptime)}${st.uptimeAtLoss !== undefined && o.uptime < st.uptimeAtLoss ? ` (${pct(st.uptimeAtLoss)} when the API stopped answering)` : ''}`);
  if (o.reachability !== undefined) parts.push(`reachability ${pct(o.reachability)}`);
  return parts.join(', ');
}

/**
 * The one verdict on an API that does not answer, from inside and outside: the network still
 * sees the node (warning: the watcher's path is broken), or it does not either (critical:
 * the node is down), or nothing tells (the service did not answer: warning, never a page).
 */
export function verdict(st: State, s: Spec, serviceBlind: boolean): Verdict {
  if (s.outside === false) return { view: 'not read (outside: false)' };
  // The service not answering for a poll changes nothing of what it said last.
  if (serviceBlind) return st.apiVerdict ?? { tier: 'warning', view: 'unknown: the data service did not answer either' };
  const o = st.outside;
  if (!o) return { tier: 'warning', view: 'unknown: the service has not been read yet' };
  if (!o.active) return { tier: 'critical', view: outsideText(st), why: 'the service lists no active validation of it' };
  if (o.reachability !== undefined && o.reachability < s.outside.downBelow) return { tier: 'critical', view: outsideText(st), why: `its reachability is ${pct(o.reachability)}, under ${pct(s.outside.downBelow)}` };
  // The service's uptime moves slowly: a point lost since the API went quiet is the node going down.
  if (o.uptime !== undefined && st.uptimeAtLoss !== undefined && o.uptime <= st.uptimeAtLoss - 1) {
    return { tier: 'critical', view: outsideText(st), why: `its uptime fell from ${pct(st.uptimeAtLoss)} to ${pct(o.uptime)}` };
  }
  return { tier: 'warning', view: outsideText(st) };
}

export function checks(node: string, url: string, st: State, s: Spec, nowS: number): Condition[] {
  const out: Condition[] = [];
  const base = { Node: node, API: hostOf(url) };
  const condition = (check: string, c: Draft, key = `${node}:${check}`): Condition => ({
    ...c,
    key,
    subject: node,
    labels: { node, network: s.network, check, ...c.labels },
    details: { ...base, ...c.details },
  });

  const v = st.apiVerdict;
  if (st.unreachableSince !== undefined && v) {
    const since = `for ${humanDuration(Math.max(0, nowS - st.unreachableSince) * 1000)}`;
    const details = { Error: st.unreachable ?? 'no answer', 'Not answering since': isoSeconds(st.unreachableSince), 'The network': v.view };
    const summary =
      v.tier === 'critical'
        ? `${node} is down: its API at ${hostOf(url)} does not answer (${st.unreachable ?? 'no answer'}) and ${v.why ?? 'the network does not see it either'}`
        : v.tier === 'warning'
          ? v.view.startsWith('unknown')
            ? `avawatch cannot reach ${node}'s API at ${hostOf(url)} (${st.unreachable ?? 'no answer'}) ${since}; the data service did not answer either: nothing tells whether the node is up`
            : `avawatch cannot reach ${node}'s API at ${hostOf(url)} (${st.unreachable ?? 'no answer'}) ${since}; the network still sees it (${v.view})`
          : `avawatch cannot reach ${node}'s API at ${hostOf(url)} (${st.unreachable ?? 'no answer'}) ${since}`;
    out.push(
      condition('api', {
        summary,
        resolvedSummary: `${node}'s API at ${hostOf(url)} answers again`,
        ...(v.tier ? { severity: v.tier, tier: v.tier } : {}),
        labels: { view: v.tier === 'critical' ? 'down' : v.view.startsWith('unknown') || v.tier === undefined ? 'unknown' : 'seen' },
        details,
      }),
    );
  }

  const off = apiOff(node, url, st);
  if (off) out.push(condition('api-off', off));

  // What the node said at its last answer holds while it does not answer.
  if (st.nodeId !== undefined && st.nodeId !== node) {
    out.push(
      condition('node-id', {
        summary: `${node}'s API at ${hostOf(url)} answers as ${st.nodeId}: a node started with another staking key validates nothing`,
        resolvedSummary: `${node}'s API answers with its own NodeID again`,
        severity: 'critical',
        details: { Expected: node, Reported: st.nodeId },
      }),
    );
  }

  const listed = st.outside?.active ? st.outside.bls : undefined;
  if (st.bls !== undefined && listed !== undefined && hexKey(st.bls) !== hexKey(listed)) {
    out.push(
      condition('bls-key', {
        summary: `${node} runs with BLS key ${short(st.bls)}, not the ${short(listed)} its validation registered: it cannot sign warp messages as the validator`,
        resolvedSummary: `${node} runs with its validation's BLS key again`,
        severity: 'critical',
        details: { 'Node reports': st.bls, 'Validation registered': listed },
      }),
    );
  }

  for (const [name, f] of Object.entries(st.failing ?? {})) {
    const since = f.since === undefined ? '' : ` since ${f.since}`;
    out.push(
      condition(
        'health',
        {
          summary: `${node}'s health check ${name} fails: ${f.error} (${f.contiguousFailures} failure${f.contiguousFailures === 1 ? '' : 's'} in a row${since})`,
          resolvedSummary: `${node}'s health check ${name} passes again`,
          labels: { health_check: name },
          details: { Check: name, Error: f.error, ...(f.since ? { 'Failing since': f.since } : {}) },
        },
        `${node}:health:${name}`,
      ),
    );
  }

  for (const chain of s.chains) {
    if (st.bootstrapped?.[chain] !== false) continue;
    out.push(
      condition(
        'bootstrapped',
        {
          summary: `${node} is not bootstrapped on the ${chainName(chain)}: it does not validate it until it is`,
          resolvedSummary: `${node} is bootstrapped on the ${chainName(chain)} again`,
          labels: { chain },
          details: { Chain: chainName(chain) },
        },
        `${node}:bootstrapped:${chain}`,
      ),
    );
  }

  const old = versionTooOld(node, st.version, s.minVersion);
  if (old) out.push(condition('version', old));

  const schedule = upgradesOff(st, s, nowS);
  if (schedule) out.push(condition('upgrades', { ...schedule, summary: `${node}: ${schedule.summary}` }));

  if (s.rewardingStake !== false && st.stakeTier !== undefined && st.rewardingStake !== undefined) {
    const level = s.rewardingStake[st.stakeTier];
    out.push(
      condition('rewarding-stake', {
        summary:
          st.rewardingStake < level
            ? `only ${pct(st.rewardingStake)} of stake thinks ${node} meets the uptime requirement, under ${pct(level)}: its reward is at risk`
            : `only ${pct(st.rewardingStake)} of stake thinks ${node} meets the uptime requirement, not back above ${pct(level + s.rewardingStake.hysteresis)} yet: its reward is at risk`,
        resolvedSummary: `${pct(st.rewardingStake)} of stake thinks ${node} meets the uptime requirement (above ${pct(s.rewardingStake.warning)})`,
        severity: st.stakeTier,
        tier: st.stakeTier,
        labels: { threshold: st.stakeTier },
        details: {
          'Rewarding stake': pct(st.rewardingStake),
          ...(st.weightedAverage !== undefined ? { 'Weighted average uptime': pct(st.weightedAverage) } : {}),
          Levels: `warning under ${pct(s.rewardingStake.warning)}, critical under ${pct(s.rewardingStake.critical)}`,
        },
      }),
    );
  }

  if (s.minPeers !== false && st.peers !== undefined && st.peers < s.minPeers) {
    out.push(
      condition('peers', {
        summary: `${node} has ${st.peers} peer${st.peers === 1 ? '' : 's'}, under ${s.minPeers}`,
        resolvedSummary: `${node} has ${s.minPeers} peers or more again`,
        details: { Peers: String(st.peers), Minimum: String(s.minPeers) },
      }),
    );
  }
  return out;
}

const INFO_FIGURES = 'its NodeID, version, bootstrapped chains, uptime and upgrades';

/**
 * An API of the node switched off (404): said once, what goes unchecked and what stands in for
 * it, as a notice (info, neutral news: never a page, never a failing rule; the rule's
 * `severities.neutral` routes it). The node answers: never "cannot reach", never "down".
 */
function apiOff(node: string, url: string, st: State): Draft | undefined {
  const off = new Set(st.off ?? []);
  if (off.size === 0 || st.unreachableSince !== undefined) return undefined;
  const where = hostOf(url);
  const summary =
    off.has('health') && off.has('info')
      ? `${node}: health API disabled and info API disabled: its API at ${where} answers 404 on both /ext/health and /ext/info (switched off, or the URL is not the node's): nothing of the node is checked`
      : off.has('health')
        ? `${node}: health API disabled (switched off: /ext/health at ${where} answers 404, AvalancheGo's --api-health-enabled=false): its health checks go unchecked; the node is judged by its info API, its peers by /ext/metrics`
        : `${node}: info API disabled (switched off: /ext/info at ${where} answers 404, AvalancheGo's --api-info-enabled=false): ${INFO_FIGURES} go unchecked; the node is judged by its health API`;
  return {
    summary,
    severity: 'info',
    news: 'neutral',
    resolvedSummary: `${node}'s API at ${where} serves ${[...off].map((a) => `/ext/${a}`).join(' and ')} again`,
    details: { 'Switched off': [...off].map((a) => `/ext/${a}`).join(', ') },
  };
}

/** The tier rewarding stake is in: entered under a level, left only above it + hysteresis. */
export function stakeTier(stake: number, was: 'warning' | 'critical' | undefined, s: Spec): 'warning' | 'critical' | undefined {
  if (s.rewardingStake === false) return undefined;
  const l = s.rewardingStake;
  if (stake < l.critical || (was === 'critical' && stake < l.critical + l.hysteresis)) return 'critical';
  if (stake < l.warning || (was !== undefined && stake < l.warning + l.hysteresis)) return 'warning';
  return undefined;
}

/** What a check that stopped holding says of now. */
export function presentOf(key: string, st: State | undefined, s: Spec): Resolution | undefined {
  if (!st) return undefined;
  const node = key.slice(0, key.indexOf(':'));
  if (key.endsWith(':rewarding-stake') && st.rewardingStake === undefined) {
    const why = st.rpcErrors?.['uptime']?.error;
    return { summary: `${node} no longer reports the share of stake that would reward it${why ? ` (info.uptime: ${why})` : ''}` };
  }
  if (key.endsWith(':rewarding-stake') && st.rewardingStake !== undefined) {
    return { summary: `${pct(st.rewardingStake)} of stake thinks ${node} meets the uptime requirement${s.rewardingStake === false ? '' : ` (above ${pct(s.rewardingStake.warning)})`}`, details: { 'Rewarding stake': pct(st.rewardingStake) } };
  }
  if (key.endsWith(':peers') && st.peers !== undefined) return { summary: `${node} has ${st.peers} peers now`, details: { Peers: String(st.peers) } };
  const check = /:health:(.+)$/.exec(key)?.[1];
  // Not "passes again": with the health API switched off nothing tells whether it does.
  if (check !== undefined && st.off?.includes('health')) return { summary: `${node}'s health check ${check} is no longer read: its health API is disabled` };
  if (key.endsWith(':peers')) return { summary: `${node}'s peer count is unknown now (${st.rpcErrors?.['peers']?.error ?? 'not read'})` };
  if (key.endsWith(':version') && st.version !== undefined) return { summary: `${node} runs ${st.version} now`, details: { Version: st.version } };
  return undefined;
}

function hexKey(k: string): string {
  return k.toLowerCase().replace(/^0x/, '');
}

function short(k: string): string {
  return k.length > 20 ? `${k.slice(0, 12)}…${k.slice(-6)}` : k;
}

/** The next upgrade the node's build schedules (info.upgrades): the earliest still ahead, not 9999. */
export function nextUpgradeOf(st: State, nowS: number): { name: string; at: number } | undefined {
  let next: { name: string; at: number } | undefined;
  for (const [name, at] of Object.entries(st.upgrades ?? {})) if (at > nowS && at < UNSCHEDULED_S && (!next || at < next.at)) next = { name, at };
  return next;
}

/**
 * An upgrade the network has activated (its time built in, src/rules/network.ts) that the
 * node's build schedules elsewhere, or not at all (9999-12-01, or no such key: a build older
 * than the upgrade): the node does not follow the network's rules (an old build, or a build for
 * another network). A time the answer gives that does not parse is no reading.
 */
export function upgradesOff(st: State, s: Spec, nowS: number): Draft | undefined {
  const theirs = st.upgrades;
  if (!theirs || Object.keys(theirs).length === 0) return undefined;
  const off = UPGRADES.flatMap((u) => {
    const network = activation(s.network, u, s.upgrades).at;
    const node = theirs[u] ?? UNSCHEDULED_S;
    return network <= nowS && node !== UNREADABLE && node !== network ? [{ u, network, node }] : [];
  });
  const first = off[0];
  if (!first) return undefined;
  const at = (t: number) => (t >= UNSCHEDULED_S ? 'not at all' : isoSeconds(t));
  return {
    severity: 'critical',
    summary: `its build schedules ${upgradeName(first.u)} ${first.node >= UNSCHEDULED_S ? 'not at all' : `at ${at(first.node)}`}, while ${s.network} activated it at ${at(first.network)}: it does not follow the network's rules; upgrade AvalancheGo (or check the network it runs on)`,
    resolvedSummary: "its build's upgrade schedule matches the network's again",
    details: Object.fromEntries(off.map((o) => [upgradeName(o.u), `the node: ${at(o.node)}; ${s.network}: ${at(o.network)}`])),
  };
}
