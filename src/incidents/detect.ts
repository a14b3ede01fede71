import type { Severity } from '../base/types.js';
import type { IncidentsConfig } from '../config/schema.js';
import { networkKey, type Group } from './groups.js';
import { fleetStakeOf, networkShareOf, ownShareOf, type FleetStake } from './shares.js';
import type { Baseline, BaselineMetric, ChildRef, Incident, Scope } from './types.js';

// Which of the operator's active alerts are one incident: network-wide first (a validator
// whose figure is within the network's own drop), then a fleet group (k of a host, a region…),
// else the validator alone. Pure: the engine calls it after each commit.

/** The families the network baseline judges, and the figure of each. */
export const BASELINE_FAMILIES: Readonly<Record<string, BaselineMetric>> = {
  'validator-health/uptime': 'uptime',
  'validator-health/reachability': 'reachability',
  'validator-health/benched': 'benched',
};

/** Benched is bad when high; uptime and reachability when low. */
const HIGH_IS_BAD: Readonly<Record<BaselineMetric, boolean>> = { uptime: false, reachability: false, benched: true };

export interface DetectInput {
  /** The detector's clock (monotonic, as the baselines' `at`). */
  now: number;
  children: readonly ChildRef[];
  /** From `groupsOf`, most specific first. */
  groups: readonly Group[];
  /** By network (fuji for testnet). */
  baselines: ReadonlyMap<string, Baseline>;
  /** The operator's validators by network (fuji for testnet): NodeIDs, for the share of their stake. */
  fleet: ReadonlyMap<string, readonly string[]>;
  /** A validator's stake, own and delegated (nAVAX or AVAX, the same unit for all); undefined when unknown. */
  stakeOf: (network: string, nodeId: string) => number | undefined;
  config: Pick<IncidentsConfig, 'k' | 'window' | 'network'>;
}

export interface Detection {
  /** Network incidents first, then groups in their order. */
  incidents: Incident[];
  scopeOf(child: Pick<ChildRef, 'rule' | 'key'>): Scope;
  incidentOf(child: Pick<ChildRef, 'rule' | 'key'>): Incident | undefined;
}

const SEVERITY_RANK: Readonly<Record<Severity, number>> = { info: 0, warning: 1, critical: 2 };
const childId = (c: Pick<ChildRef, 'rule' | 'key'>) => `${c.rule}\u0000${c.key}`;

/** Whether a baseline may give a verdict now: whole and not older than `maxAge`. */
export function baselineUsable(b: Baseline | undefined, now: number, maxAgeMs: number): b is Baseline {
  return b !== undefined && b.complete && now - b.at <= maxAgeMs && now >= b.at - maxAgeMs;
}

export function detect(input: DetectInput): Detection {
  const { config, now } = input;
  // Only bad news about a validator counts (info is news, not trouble), and only once it fires:
  // a condition inside its `for` may be a blip, and an incident of blips would page for nothing.
  const children = input.children.filter((c) => c.state === 'firing' && SEVERITY_RANK[c.severity] >= SEVERITY_RANK.warning);
  const claimed = new Map<string, Incident>();
  const incidents: Incident[] = [];
  const byNetwork = new Map<string, ChildRef[]>();
  for (const c of children) {
    const n = networkKey(c.network);
    let list = byNetwork.get(n);
    if (!list) byNetwork.set(n, (list = []));
    list.push(c);
  }

  const stakes = new Map<string, FleetStake | undefined>();
  const fleetStake = (network: string): FleetStake | undefined => {
    if (!stakes.has(network)) stakes.set(network, fleetStakeOf(input.fleet.get(network) ?? [], (id) => input.stakeOf(network, id)));
    return stakes.get(network);
  };

  const raise = (base: Omit<Incident, 'members' | 'validators' | 'severity' | 'networkShare' | 'ownShare'>, members: ChildRef[], networkShare: number | undefined): void => {
    members.sort(byMember);
    const nodeIds = new Set(members.map((m) => m.nodeId));
    const ownShare = ownShareOf(nodeIds, fleetStake(base.network));
    const severity = members.reduce<Severity>((s, m) => (SEVERITY_RANK[m.severity] > SEVERITY_RANK[s] ? m.severity : s), 'warning');
    const incident: Incident = { ...base, severity, members, validators: [...new Set(members.map((m) => m.validator))].sort(cmp) };
    if (networkShare !== undefined) incident.networkShare = networkShare;
    if (ownShare !== undefined) incident.ownShare = ownShare;
    incidents.push(incident);
    for (const m of members) claimed.set(childId(m), incident);
  };

  // Network-wide: only on a whole, fresh sweep, and only for a validator within the network's drop.
  for (const [network, list] of [...byNetwork].sort(([a], [b]) => cmp(a, b))) {
    const baseline = input.baselines.get(network);
    if (!baselineUsable(baseline, now, config.network.maxAge)) continue;
    for (const [family, metric] of Object.entries(BASELINE_FAMILIES)) {
      const share = baseline.belowShare(metric);
      if (!(share >= config.network.share)) continue;
      const members = list.filter((c) => c.family === family && withinDrop(baseline, c.nodeId, metric, config.network.tolerance));
      if (members.length > 0) raise({ key: `incident:network:${network}:${family}`, scope: 'network', network, family }, members, share);
    }
  }

  // Groups, most specific first: k validators of the group whose first unclaimed child started within one window.
  const byNode = new Map<string, ChildRef[]>();
  for (const [network, list] of byNetwork) {
    for (const c of list) {
      const id = `${network}\u0000${c.nodeId}`;
      let l = byNode.get(id);
      if (!l) byNode.set(id, (l = []));
      l.push(c);
    }
  }
  for (const g of input.groups) {
    const members: ChildRef[] = [];
    const starts: number[] = [];
    for (const nodeId of g.nodeIds) {
      const free = (byNode.get(`${g.network}\u0000${nodeId}`) ?? []).filter((c) => !claimed.has(childId(c)));
      if (free.length === 0) continue;
      members.push(...free);
      starts.push(Math.min(...free.map((c) => c.since)));
    }
    const k = Math.min(config.k, g.nodeIds.length);
    if (mostWithin(starts, config.window) < k) continue;
    const baseline = input.baselines.get(g.network);
    raise({ key: `incident:group:${g.network}:${g.name}`, scope: 'group', group: g.name, network: g.network }, members, networkShareOf(new Set(members.map((m) => m.nodeId)), baseline));
  }

  return {
    incidents,
    incidentOf: (c) => claimed.get(childId(c)),
    scopeOf: (c) => claimed.get(childId(c))?.scope ?? 'validator',
  };
}

/** A validator's own figure is no worse than the network's dip (p10, or p90 when high is bad) by more than the tolerance. */
function withinDrop(baseline: Baseline, nodeId: string, metric: BaselineMetric, tolerance: number): boolean {
  const f = baseline.figureOf(nodeId);
  if (!f) return false;
  const own = metric === 'uptime' ? f.uptime : metric === 'reachability' ? f.reach : f.benched;
  const q = baseline.quantiles[metric];
  return HIGH_IS_BAD[metric] ? own <= q.p90 + tolerance : own >= q.p10 - tolerance;
}

/** The most start times that fit in one window of the given length. */
function mostWithin(starts: number[], windowMs: number): number {
  const t = [...starts].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; j < t.length; j++) {
    while ((t[j] as number) - (t[i] as number) > windowMs) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

/** An incident's members in their order: by validator, rule, key. */
export function byMember(a: ChildRef, b: ChildRef): number {
  return cmp(a.validator, b.validator) || cmp(a.rule, b.rule) || cmp(a.key, b.key);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
