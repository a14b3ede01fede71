import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { AlertMessage } from '../../src/base/types.js';
import { keyOf, Violation } from './checks.js';
import { poll, type Run } from './commands.js';
import { outboxRows, rulesYaml, type Daemon } from './daemon.js';
import { initialFleet, inventoryYaml, TEAMS, withoutNode, type Member, type Team } from './fleet.js';
import { NODES, watched, type Model } from './world.js';

// Reloads that edit the fleet: a validator removed from the inventory (and its rules), added
// back, renamed, or moved to the other team (whose receiver is another). After each, the
// receivers must hold the truth: nothing they hold firing is left for nobody to resolve,
// what moved fires where it is now, and no "back to normal" is said of what nobody read.

export type FleetEdit = 'remove' | 'add' | 'rename' | 'move';

const fleets = new WeakMap<Model, Member[]>();

function fleetOf(model: Model): Member[] {
  let fleet = fleets.get(model);
  if (!fleet) fleets.set(model, (fleet = initialFleet()));
  return fleet;
}


export class Reload implements fc.AsyncCommand<Model, Run> {
  constructor(
    readonly what: FleetEdit,
    readonly node: string,
  ) {}

  check = (m: Model) => {
    if (this.what === 'add') return !watched(m, this.node);
    if (!watched(m, this.node)) return false;
    // The rules keep two nodes: a list of none is no rule.
    return this.what !== 'remove' || NODES.filter((n) => watched(m, n)).length > 2;
  };

  async run(model: Model, run: Run) {
    const step = this.toString();
    const d = run.d;
    const before = await snapshot(d, this.node);
    const member = fleetOf(model).find((m) => m.nodeId === this.node) as Member;
    if (this.what === 'remove') (model.unwatched ??= new Set()).add(this.node);
    if (this.what === 'add') {
      model.unwatched?.delete(this.node);
      // Watched afresh: node-health's `for` starts at its first look again.
      const n = model.nodes.find((x) => x.nodeId === this.node);
      if (n) for (const what of Object.keys(n.api.since) as Array<keyof typeof n.api.since>) n.api.since[what] = model.nowMs;
      // Whether its uptime's hysteresis starts afresh is the daemon's to keep or not: judged again from a reading that needs no history.
      if (n?.tier !== undefined) n.tier = 'unknown';
    }
    if (this.what === 'rename') member.name = member.name.endsWith('-2') ? member.name.slice(0, -2) : `${member.name}-2`;
    if (this.what === 'move') member.team = member.team === 'core' ? 'infra' : 'core';
    writeFleet(d, model);
    if (!(await d.app.reload(`fuzz ${step}`))) throw new Violation(`${step}: the reload was refused: ${d.logs.slice(-3).join('')}`);
    // What the reload itself queued is news of the alerts it ended (a change) or moved (none).
    for (const a of alertsSince(d, before.lastId)) {
      if (!about(a, this.node)) throw new Violation(`${step}: the reload notified of what it did not change: ${a.rule} ${a.status}: ${a.summary}`);
      const key = keyOf(a);
      if (!key) continue;
      const into = a.status === 'resolved' && a.summary.includes(' is no longer watched: ') ? run.judged.since : (run.judged.reminded ??= new Map());
      into.set(key, [...(into.get(key) ?? []), a]);
    }
    await poll(run, model, step, true);
    await receiversHoldTheTruth(d, this.node, before, step);
  }

  toString = () => `reload: ${this.what} ${this.node.slice(7, 12)}`;
}

function writeFleet(d: Daemon, model: Model): void {
  const fleet = fleetOf(model).filter((m) => watched(model, m.nodeId));
  let rules = rulesYaml(d.service.url);
  for (const node of NODES) if (!watched(model, node)) rules = withoutNode(rules, node);
  writeFileSync(join(d.dir, 'inventory.yaml'), inventoryYaml(fleet));
  writeFileSync(join(d.dir, 'rules.yaml'), rules);
}

interface Firing {
  rule: string;
  subject: string;
  labels: Record<string, string>;
  summary: string;
}

interface Snapshot {
  lastId: number;
  /** What fires in the store about the node, and each team receiver and Alertmanager hold firing of it. */
  store: Firing[];
  hooks: Record<Team, Set<string>>;
  alertmanager: Set<string>;
  /** Alertmanager's posts so far. */
  posts: number;
}

async function snapshot(d: Daemon, node: string): Promise<Snapshot> {
  const row = d.db.prepare('SELECT MAX(id) AS id FROM alerts').get() as { id: number | null };
  const store = (await storeFiring(d)).filter((a) => about(a, node));
  return { lastId: row.id ?? 0, store, hooks: hooksHold(d, node), alertmanager: alertmanagerHolds(d, node), posts: d.providers.alertmanager.received.length };
}

/**
 * Differential, so an earlier step's dead letter is not blamed on the reload: what a receiver
 * rightly held firing before it still fires there now, or was ended there; what fires now
 * and did not before reached the receivers it routes to.
 */
async function receiversHoldTheTruth(d: Daemon, node: string, before: Snapshot, step: string): Promise<void> {
  for (const a of alertsSince(d, before.lastId)) {
    if (a.status !== 'resolved' || !about(a, node)) continue;
    if (!a.summary.includes(' is no longer watched: ') && !a.summary.includes(', still firing: ')) {
      throw new Violation(`${step}: "${a.summary}" was sent (${a.rule}), a resolution nobody observed: the reload only changed what is watched`);
    }
  }
  const now = (await storeFiring(d)).filter((a) => about(a, node));
  const hooks = hooksHold(d, node);
  const alertmanager = alertmanagerHolds(d, node);
  // A receiver still owed rows (paused or backing off after an earlier step's trouble) gets them later: nothing is lost.
  const owed = new Set(outboxRows(d).filter((r) => r.state === 'pending').map((r) => r.receiver));
  for (const team of TEAMS) {
    if (owed.has(`team-${team}`)) continue;
    const rightly = new Set(before.store.filter((a) => a.labels['team'] === team).map(hookId));
    const there = new Set(now.filter((a) => a.labels['team'] === team).map(hookId));
    for (const id of before.hooks[team]) {
      if (rightly.has(id) && hooks[team].has(id) && !there.has(id)) throw new Violation(`${step}: team-${team} still holds FIRING ${id}, which no longer fires there: nothing will resolve it`);
    }
    for (const id of there) {
      if (!rightly.has(id) && !hooks[team].has(id)) throw new Violation(`${step}: ${id} fires for team ${team} now, and team-${team} was not told`);
    }
  }
  if (owed.has('alertmanager')) return;
  const rightly = new Set(before.store.map(amId));
  const there = new Set(now.map(amId));
  for (const id of before.alertmanager) {
    if (rightly.has(id) && alertmanager.has(id) && !there.has(id)) throw new Violation(`${step}: Alertmanager still holds the label set ${id} firing, which no longer fires: it is left to expire`);
  }
  for (const id of there) if (!rightly.has(id) && !alertmanager.has(id)) throw new Violation(`${step}: the label set ${id} fires now, and Alertmanager was not told`);
  // A label set that changed ends in the very post that fires the new one (never a moment of both, or of neither).
  const posts = d.providers.alertmanager.received.slice(before.posts).filter((r) => r.status < 300).map((r) => JSON.parse(r.body) as Array<{ labels: Record<string, string>; endsAt: string }>);
  for (const a of now) {
    const old = before.store.find((b) => hookId(b) === hookId(a) && amId(b) !== amId(a));
    if (!old) continue;
    const post = posts.find((p) => p.some((x) => fingerprint(x.labels) === amId(a)));
    const ended = post?.some((x) => fingerprint(x.labels) === amId(old) && Date.parse(x.endsAt) <= Date.now());
    if (!ended) throw new Violation(`${step}: Alertmanager got ${amId(a)} firing without the old label set ${amId(old)} ended in the same post`);
  }
}

async function storeFiring(d: Daemon): Promise<Firing[]> {
  const res = await fetch(`${d.app.url}/api/v1/alerts`);
  return ((await res.json()) as { alerts: Firing[] }).alerts;
}

function about(a: Pick<Firing, 'subject' | 'labels'>, node: string): boolean {
  return a.labels['node'] === node || a.labels['entity'] === node || a.subject.includes(node);
}

/** A team receiver knows an alert by what it is about (a validator's name and team change where it goes, not what it is). */
function hookId(a: Pick<Firing, 'rule' | 'subject' | 'labels'>): string {
  const labels = Object.entries(a.labels).filter(([k]) => k !== 'team' && k !== 'validator' && k !== 'severity');
  return `${a.rule} ${a.subject} ${JSON.stringify(labels.sort(([x], [y]) => (x < y ? -1 : 1)))}`;
}

/** Alertmanager knows an alert by its label set. */
function amId(a: Pick<Firing, 'rule' | 'subject' | 'labels'>): string {
  return fingerprint({ alertname: a.rule, ...a.labels, subject: a.subject });
}

function fingerprint(labels: Record<string, string>): string {
  return JSON.stringify(Object.entries(labels).sort(([x], [y]) => (x < y ? -1 : 1)));
}

/** Each team receiver's last word per alert about the node: the ones it holds firing. */
function hooksHold(d: Daemon, node: string): Record<Team, Set<string>> {
  const out = {} as Record<Team, Set<string>>;
  for (const team of TEAMS) {
    const last = new Map<string, string>();
    for (const r of d.teams[team].received) {
      if (r.status >= 300) continue;
      const body = JSON.parse(r.body) as { alerts: Array<Firing & { status: string }> };
      for (const a of body.alerts) if (about(a, node)) last.set(hookId(a), a.status);
    }
    out[team] = new Set([...last].filter(([, status]) => status === 'firing').map(([id]) => id));
  }
  return out;
}

/** The label sets about the node Alertmanager holds firing now: its last post of each ends later. */
function alertmanagerHolds(d: Daemon, node: string): Set<string> {
  const last = new Map<string, number>();
  for (const r of d.providers.alertmanager.received) {
    if (r.status >= 300) continue;
    for (const a of JSON.parse(r.body) as Array<{ labels: Record<string, string>; endsAt: string }>) {
      const { subject = '', ...labels } = a.labels;
      if (about({ subject, labels }, node)) last.set(fingerprint(a.labels), Date.parse(a.endsAt));
    }
  }
  const now = Date.now();
  return new Set([...last].filter(([, endsAt]) => endsAt > now).map(([id]) => id));
}

/** The alerts committed after `id` (a reload's own are in none of the polls' answers). */
function alertsSince(d: Daemon, id: number): AlertMessage[] {
  const rows = d.db.prepare('SELECT id, rule, kind, status, severity, subject, summary, labels, details, created_at, reminder, condition_key FROM alerts WHERE id > ? ORDER BY id').all(id) as Array<Record<string, unknown>>;
  return rows.map((r) => ({
    alertId: r['id'] as number,
    rule: r['rule'] as string,
    kind: r['kind'] as string,
    status: r['status'] as AlertMessage['status'],
    severity: r['severity'] as AlertMessage['severity'],
    subject: r['subject'] as string,
    summary: r['summary'] as string,
    labels: JSON.parse(r['labels'] as string) as Record<string, string>,
    details: JSON.parse(r['details'] as string) as Record<string, string>,
    at: new Date(r['created_at'] as number).toISOString(),
    ...(r['reminder'] ? { reminder: true } : {}),
    ...(typeof r['condition_key'] === 'string' ? { conditionKey: r['condition_key'] } : {}),
  }));
}

export const reloadSteps: fc.Arbitrary<fc.AsyncCommand<Model, Run>> = fc
  .tuple(fc.constantFrom<FleetEdit>('remove', 'add', 'rename', 'move', 'move'), fc.constantFrom(...NODES))
  .map(([what, node]) => new Reload(what, node));
