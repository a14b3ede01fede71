import type { ActiveAlert } from '../alerts/lifecycle.js';
import type { LoadedRule } from '../config/load.js';
import type { IncidentsConfig } from '../config/schema.js';
import { listedAlerts } from '../incidents/condition.js';
import { BASELINE_FAMILIES, byMember, detect, type Detection } from '../incidents/detect.js';
import { groupsOf, networkKey, type Group } from '../incidents/groups.js';
import type { Baseline, ChildRef, Incident } from '../incidents/types.js';
import { validatorOf } from '../inventory/name.js';
import type { InventoryValidator } from '../inventory/schema.js';
import type { BaselineView } from '../rules/baseline.js';
import type { Condition, Severity } from '../base/types.js';

// The engine's side of issue 40: which of the operator's active alerts are one incident, kept
// between commits. Detection itself is pure (src/incidents); this keeps the index of active
// children per rule, the baselines with their age on the steady clock, and which incidents
// fire to which receivers (a child is held only from a receiver that got its incident).

/** One network's baseline as the page shows it. */
export interface NetworkBaseline {
  view: BaselineView;
  /** Age of the last whole sweep on the steady clock; undefined when none was read since avawatch started. */
  ageMs: number | undefined;
  /** Why no network verdict is given now (the page's "baseline stale" text), or undefined. */
  stale: string | undefined;
}

interface Swept {
  view: BaselineView;
  /** When its whole sweep was committed here (steady clock). */
  sweptAt: number | undefined;
}

/** An incident whose alert fires: who got it (its children are held from those only). */
interface Firing {
  incident: Incident;
  receivers: ReadonlySet<string>;
  summary: string;
}

const childId = (rule: string, key: string) => `${rule}\u0000${key}`;

export class IncidentTracker {
  readonly config: IncidentsConfig;
  #groups: Group[] = [];
  #fleet = new Map<string, string[]>();
  /** `network\0nodeId` of every validator in a group of two or more. */
  #grouped = new Set<string>();
  readonly #children = new Map<string, ChildRef[]>();
  readonly #baselines = new Map<string, Swept>();
  /** Incidents raised last, by key, with their members' ids (an incident holds while one of them is active). */
  #open = new Map<string, Incident>();
  #firing = new Map<string, Firing>();
  /** Child id → the incident key that claims it. */
  #claims = new Map<string, string>();

  constructor(config: IncidentsConfig, inventory: readonly InventoryValidator[]) {
    this.config = config;
    this.regroup(inventory);
  }

  /** The inventory's groups, again after a reload changed it (the incidents open now are kept). */
  regroup(inventory: readonly InventoryValidator[]): void {
    this.#groups = groupsOf(inventory, this.config.groupBy);
    this.#grouped = new Set(this.#groups.flatMap((g) => g.nodeIds.map((id) => `${g.network}\u0000${id}`)));
    this.#fleet = new Map();
    for (const v of inventory) {
      const n = networkKey(v.network);
      const list = this.#fleet.get(n) ?? [];
      list.push(v.nodeId);
      this.#fleet.set(n, list);
    }
  }

  /** A network-baseline rule committed: its views, the whole sweep's age counted from now when it is new. */
  swept(views: readonly BaselineView[], steady: number): void {
    for (const view of views) {
      const network = networkKey(view.network);
      const was = this.#baselines.get(network);
      const fresh = view.at !== undefined && view.at !== was?.view.at;
      this.#baselines.set(network, { view, sweptAt: fresh ? steady : was?.sweptAt });
    }
  }

  /** A restored baseline: its age is unknown on this steady clock, so it gives no verdict until the next sweep. */
  restored(views: readonly BaselineView[]): void {
    for (const view of views) this.#baselines.set(networkKey(view.network), { view, sweptAt: undefined });
  }

  baselines(steady: number): NetworkBaseline[] {
    return [...this.#baselines.values()].map(({ view, sweptAt }) => {
      const ageMs = sweptAt === undefined ? undefined : steady - sweptAt;
      const stale =
        view.why ?? (view.at === undefined ? 'no whole sweep yet' : ageMs === undefined ? 'stale: no sweep read since avawatch started' : ageMs > this.config.network.maxAge ? `stale: the last whole sweep is ${Math.round(ageMs / 60_000)} min old` : undefined);
      return { view, ageMs, stale };
    });
  }

  /** The children one rule's active alerts make: bad news about an inventory validator. */
  childrenOf(rule: LoadedRule, active: readonly Pick<ActiveAlert, 'key' | 'state' | 'startedAt' | 'condition'>[]): ChildRef[] {
    const out: ChildRef[] = [];
    for (const a of active) {
      const ref = this.childOf(rule, a.condition, a.state, a.startedAt);
      if (ref) out.push(ref);
    }
    return out;
  }

  childOf(rule: LoadedRule, c: Condition, state: 'pending' | 'firing', since: number): ChildRef | undefined {
    const v = validatorOf(rule.validators, c);
    if (!v) return undefined;
    const family = `${rule.kind}/${c.labels['check'] ?? c.labels['alertname'] ?? rule.kind}`;
    const severity: Severity = c.severity ?? rule.severity;
    return { rule: rule.name, key: c.key, family, network: networkKey(v.network), validator: v.name, nodeId: v.nodeId, state, since, severity };
  }

  /** Whether a firing notification about this validator waits `wait` for an incident to form: it could join one. */
  mayJoin(rule: LoadedRule, c: Pick<Condition, 'subject' | 'labels'>): boolean {
    if (!this.config.enabled) return false;
    const v = validatorOf(rule.validators, c);
    if (!v) return false;
    const network = networkKey(v.network);
    if (this.#grouped.has(`${network}\u0000${v.nodeId}`)) return true;
    const family = `${rule.kind}/${c.labels['check'] ?? ''}`;
    return family in BASELINE_FAMILIES && this.#baselines.has(network);
  }

  /** The scopes this rule's conditions would have, were these its children (before its commit). */
  trial(rule: string, children: readonly ChildRef[], steady: number): Detection {
    return this.#detect(new Map([...this.#children, [rule, [...children]]]), steady);
  }

  /**
   * The networks whose baseline should be swept now: a child of a family the baseline judges
   * is new, and the last whole sweep is older than `wait` ("is it me or the network?" is asked now).
   */
  wantsSweep(rule: string, after: readonly ChildRef[], steady: number): string[] {
    if (!this.config.enabled) return [];
    const known = new Set((this.#children.get(rule) ?? []).map((c) => c.key));
    const out = new Set<string>();
    for (const c of after) {
      if (known.has(c.key) || !(c.family in BASELINE_FAMILIES)) continue;
      const b = this.#baselines.get(c.network);
      if (b && (b.sweptAt === undefined || steady - b.sweptAt > this.config.wait)) out.add(c.network);
    }
    return [...out];
  }

  /** One rule's children after its commit. */
  update(rule: string, children: readonly ChildRef[]): void {
    if (children.length === 0) this.#children.delete(rule);
    else this.#children.set(rule, [...children]);
  }

  forget(rule: string): void {
    this.#children.delete(rule);
  }

  /**
   * The incidents that hold now: those detection raises, and those raised before that still
   * have an active member no other incident claims (an incident ends when its last child does,
   * not when fewer than k remain, so the rest are not re-notified one by one).
   */
  incidents(steady: number): Incident[] {
    if (!this.config.enabled) return [];
    const detection = this.#detect(this.#children, steady);
    const raised = new Map(detection.incidents.map((i) => [i.key, i]));
    const claimed = new Set(detection.incidents.flatMap((i) => i.members.map((m) => childId(m.rule, m.key))));
    const active = new Map<string, ChildRef>();
    for (const list of this.#children.values()) for (const c of list) active.set(childId(c.rule, c.key), c);
    for (const [key, was] of this.#open) {
      if (raised.has(key)) continue;
      const members = was.members.flatMap((m) => {
        const now = active.get(childId(m.rule, m.key));
        return now && !claimed.has(childId(m.rule, m.key)) ? [now] : [];
      });
      if (members.length === 0) continue;
      for (const m of members) claimed.add(childId(m.rule, m.key));
      raised.set(key, { ...was, members, validators: [...new Set(members.map((m) => m.validator))].sort() });
    }
    this.#open = raised;
    this.#claims = new Map([...raised.values()].flatMap((i) => i.members.map((m) => [childId(m.rule, m.key), i.key] as const)));
    return [...raised.values()];
  }

  /**
   * An incident whose alert fired before a restart: open again over its members still active,
   * as one raised before is kept (`incidents`). Detection alone would drop a network-wide one
   * until the next sweep (the restored baseline's age is unknown), resolving it while its alerts fire.
   */
  resume(c: Condition): void {
    const scope = c.labels['scope'];
    if (this.#open.has(c.key) || (scope !== 'group' && scope !== 'network')) return;
    const listed = new Set(listedAlerts(c));
    const network = c.labels['network'] ?? '';
    const members = [...this.#children.values()].flat().filter((m) => m.network === network && listed.has(`${m.validator}: ${m.family}`)).sort(byMember);
    if (members.length === 0) return;
    const { group, family } = c.labels;
    this.#open.set(c.key, {
      key: c.key,
      scope,
      network,
      ...(group === undefined ? {} : { group }),
      ...(family === undefined ? {} : { family }),
      severity: c.severity ?? 'warning',
      members,
      validators: [...new Set(members.map((m) => m.validator))].sort(),
    });
  }

  /** The incident's alert fires (to these receivers, unmuted) or not. */
  firing(incident: Incident, receivers: readonly string[] | undefined, summary: string): void {
    if (receivers === undefined) this.#firing.delete(incident.key);
    else this.#firing.set(incident.key, { incident, receivers: new Set(receivers), summary });
  }

  /** Keys of incidents whose alerts fire. */
  firingKeys(): string[] {
    return [...this.#firing.keys()];
  }

  /** The incident a child belongs to now, if any. */
  incidentOf(rule: string, key: string): string | undefined {
    return this.#claims.get(childId(rule, key));
  }

  /** Why a firing child's notification to this receiver is held back: its incident fires to that receiver. */
  heldFor(rule: string, key: string | undefined, receiver: string): string | undefined {
    if (key === undefined) return undefined;
    const incident = this.#claims.get(childId(rule, key));
    const firing = incident === undefined ? undefined : this.#firing.get(incident);
    if (!firing || !firing.receivers.has(receiver)) return undefined;
    return `held by incident ${firing.incident.key}: ${firing.summary}`;
  }

  #detect(children: ReadonlyMap<string, readonly ChildRef[]>, steady: number): Detection {
    const baselines = new Map<string, Baseline>();
    for (const [network, b] of this.#baselines) baselines.set(network, asBaseline(b, steady));
    return detect({
      now: steady,
      children: [...children.values()].flat(),
      groups: this.#groups,
      baselines,
      fleet: this.#fleet,
      stakeOf: (network, nodeId) => this.#baselines.get(network)?.view.figureOf(nodeId)?.stakePct,
      config: this.config,
    });
  }
}

/** The pure layer's Baseline from a view: whole only when the view is usable and its age known here. */
function asBaseline({ view, sweptAt }: Swept, steady: number): Baseline {
  const q = (f: 'uptime' | 'reachability' | 'benched') => view.quantiles[f] ?? { p10: NaN, p50: NaN, p90: NaN };
  return {
    network: networkKey(view.network),
    // An unknown age (restored) is as old as can be: no verdict until the next sweep.
    at: sweptAt ?? -Infinity,
    complete: view.usable && sweptAt !== undefined && steady >= sweptAt,
    count: view.count,
    quantiles: { uptime: q('uptime'), reachability: q('reachability'), benched: q('benched') },
    versions: view.versions,
    figureOf: (nodeId) => {
      const f = view.figureOf(nodeId);
      return f && { uptime: f.uptime ?? NaN, reach: f.reachability ?? NaN, benched: f.benched ?? NaN, stakePct: f.stakePct };
    },
    belowShare: (metric) => view.belowShare(metric) / 100,
  };
}
