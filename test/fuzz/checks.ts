import type { AlertMessage } from '../../src/base/types.js';
import { API_TIMEOUT_MS, DELIVERY, DELIVERY_WAIT_CAP_MS, outboxRows, type Daemon } from './daemon.js';
import { leaks, MAX_TIMER_MS, Unsearched, type LoopWatch, type Timers } from './probes.js';
import { PROVIDERS } from './receivers.js';
import { expected, HEALTH_OFF, severityOf, type Model } from './world.js';
import { L1_RULE } from './world-40.js';

// The invariants, checked after every step. Each throws with what a user would have seen.

export class Violation extends Error {
  override readonly name = 'Violation';
}

function fail(what: string): never {
  throw new Violation(what);
}

export interface Watch {
  loop: LoopWatch;
  timers: Timers;
}

/** The event loop was never blocked for 1 s, and /healthz answers within 1 s. */
export async function alive(d: Daemon, w: Watch, step: string): Promise<void> {
  const blocked = w.loop.maxBlockedMs();
  if (blocked > 1_000) fail(`${step}: the event loop was blocked for ${Math.round(blocked)} ms (/healthz, every other rule and delivery stood still)`);
  const res = await fetch(`${d.app.url}/healthz`, { signal: AbortSignal.timeout(1_000) }).catch((e: unknown) => fail(`${step}: /healthz did not answer within 1 s (${String(e)})`));
  if (res.status !== 200) fail(`${step}: /healthz answered ${res.status}`);
}

/** No timer over setTimeout's ceiling was ever asked for. */
export function timersCapped(w: Watch, step: string): void {
  if (w.timers.overflows.length > 0 || w.timers.warnings > 0) {
    const first = w.timers.overflows[0];
    fail(`${step}: a timer of ${first?.ms ?? '?'} ms was set (over 2^31-1 ms it fires at once, again and again; ${w.timers.warnings} TimeoutOverflowWarning(s))\n${first?.stack ?? ''}`);
  }
}

/** What each daemon's log, state file and messages held when last searched. */
const searched = new WeakMap<Daemon, Unsearched>();

/** No configured secret in any notification, log line, page, /metrics, /api/v1/alerts or the state file. */
export async function noSecrets(d: Daemon, step: string): Promise<void> {
  const get = async (path: string) => (await fetch(`${d.app.url}${path}`, { signal: AbortSignal.timeout(5_000) })).text();
  let unsearched = searched.get(d);
  if (!unsearched) searched.set(d, (unsearched = new Unsearched()));
  const sources: Record<string, string> = {
    log: unsearched.text('log', d.logs.join('')),
    'status page': await get('/'),
    '/metrics': await get('/metrics'),
    '/api/v1/alerts': await get('/api/v1/alerts'),
    'state file': unsearched.stateFile(d.statePath),
  };
  const found = leaks(sources, d.secrets);
  // A provider's own credential is in its own requests by design (PagerDuty's routing key); any other is a leak.
  for (const p of PROVIDERS) {
    const own = new Set(d.providers[p].secrets);
    const text = unsearched.text(`message to ${p}`, d.providers[p].received.map((r) => r.body).join('\n'));
    found.push(...leaks({ [`message to ${p}`]: text }, d.secrets.filter((s) => !own.has(s))));
  }
  if (found.length > 0) fail(`${step}: a secret leaked: ${found.join(', ')}`);
}

/**
 * Delivery is capped and honest: no row waits longer than the cap, none is dead-lettered for
 * age before its real maxAge, no provider's answer is called a network error (they always
 * answer), a redirect ends as a configuration error, a message the provider took is taken at
 * most twice (one duplicate for an answer that came too late), and no huge answer is read whole.
 */
export function deliveryHonest(d: Daemon, step: string): void {
  const now = d.world.clock.nowMs();
  for (const r of outboxRows(d)) {
    const born = Math.max(r.created_at, r.digest_at ?? 0);
    if (r.state === 'pending' && r.next_attempt_at - now > DELIVERY_WAIT_CAP_MS + DELIVERY.backoffMaxMs) {
      fail(`${step}: notification ${r.id} to ${r.receiver} waits ${Math.round((r.next_attempt_at - now) / 60_000)} min for its next attempt, past the ${DELIVERY_WAIT_CAP_MS / 60_000} min cap (${r.last_error})`);
    }
    if (r.state === 'dead' && /undelivered after|expired/i.test(r.last_error ?? '') && r.updated_at - born < DELIVERY.maxAgeMs) {
      fail(`${step}: notification ${r.id} to ${r.receiver} was dead-lettered ${Math.round((r.updated_at - born) / 60_000)} min after it was made, before its maxAge: "${r.last_error}"`);
    }
    if (/network/i.test(r.last_error ?? '')) fail(`${step}: notification ${r.id} to ${r.receiver}: "${r.last_error}" (the provider answered)`);
  }
  const hook = d.providers.webhook;
  const copies = new Map<number, number>();
  // Copies the provider took (a 2xx, also one given after the sender stopped waiting): a refusal asks for another.
  for (const r of hook.received) if (r.status < 300) for (const id of r.ids) copies.set(id, (copies.get(id) ?? 0) + 1);
  for (const [id, n] of copies) if (n > 2) fail(`${step}: the webhook took alert ${id} ${n} times (at most one duplicate)`);
  for (const p of PROVIDERS) {
    const most = Math.max(0, ...d.providers[p].hugeWritten);
    if (most > 16 * 1024 * 1024) fail(`${step}: avawatch read ${Math.round(most / 1024 / 1024)} MB of ${p}'s answer (no cap)`);
  }
  for (const p of PROVIDERS) {
    if (d.providers[p].redirects === 0) continue;
    const pending = outboxRows(d).filter((r) => r.receiver === p && r.state === 'pending' && r.attempts > 0 && r.last_error !== null);
    const wrong = pending.find((r) => /HTTP 3\d\d|redirect/i.test(r.last_error ?? ''));
    if (wrong) fail(`${step}: ${p} answered with a redirect and the notification is retried ("${wrong.last_error}") instead of dead-lettered as a configuration error`);
  }
}

/** The notifications of one poll. */
export function notificationsOf(alerts: readonly AlertMessage[]): string[] {
  return alerts.map((a) => `${a.rule} ${a.status} ${a.severity}: ${a.summary}`);
}

/** Notifications that no odd answer may cause: all but rule-failing and (on HTTP faults) the probe's own. */
export function falseNotifications(alerts: readonly AlertMessage[], probeFailuresAllowed: boolean): AlertMessage[] {
  return alerts.filter((a) => a.labels['alertname'] !== 'rule-failing' && !(probeFailuresAllowed && a.rule === 'sig'));
}

const MODELLED = new Set(['health', HEALTH_OFF, 'blocks', 'node', L1_RULE]);

/** Which `rule/key` the store has firing now, with severity. */
export async function firingNow(d: Daemon): Promise<Map<string, string>> {
  const res = await fetch(`${d.app.url}/api/v1/alerts`);
  const { alerts } = (await res.json()) as { alerts: Array<{ rule: string; key: string; severity: string; labels: Record<string, string> }> };
  return new Map(alerts.filter((a) => MODELLED.has(a.rule) && a.labels['alertname'] !== 'rule-failing').map((a) => [`${a.rule}/${a.key}`, a.severity]));
}

export interface Judged {
  /** `rule/key` → the model's verdict at the last clean check: firing severity or '' (not firing). */
  verdict: Map<string, string>;
  /** Notifications per `rule/key` since then (reminders apart: they are no change). */
  since: Map<string, AlertMessage[]>;
  /** Reminders per `rule/key` since then: only of what still fires. */
  reminded?: Map<string, AlertMessage[]>;
  /** `rule/key`s the model could not judge since their verdict (unsure, or their rule failing): their notifications are judged as a sequence. */
  stretch?: Set<string>;
}

export function keyOf(a: AlertMessage): string | undefined {
  if (!MODELLED.has(a.rule) || a.labels['alertname'] === 'rule-failing') return undefined;
  if (a.rule === 'health' || a.rule === HEALTH_OFF) return `${a.rule}/${a.labels['node']}:${a.labels['check']}`;
  // node-health's keys are its conditions' (NodeID:health:check, NodeID:node-id…), as firingNow reads them; once() leaves conditionKey out.
  if (a.rule === 'node') {
    if (a.conditionKey !== undefined) return `node/${a.conditionKey}`;
    const { node, check } = a.labels;
    if (check === 'health') return `node/${node}:health:${a.labels['health_check']}`;
    if (check === 'bootstrapped') return `node/${node}:bootstrapped:${a.labels['chain']}`;
    return `node/${node}:${check}`;
  }
  // l1-liveness's keys are `subnet/check` (the L1's subnet is its entity), as its labels say: once() leaves conditionKey out.
  if (a.rule === L1_RULE) return `${L1_RULE}/${a.labels['subnet']}/${a.labels['check']}`;
  return `blocks/${a.labels['node']}:${a.labels['chain']}`;
}

/**
 * After a clean poll: what fires is what the model says (no false fire, no false resolve, no
 * silence), at the severity it says, and each change of verdict since the last check arrived
 * as exactly one notification (none when nothing changed). A key the model cannot judge for a
 * while (near a boundary, its rule failing) keeps its last verdict: what it sent meanwhile is
 * judged when the model can again, as a sequence that ends where the model says.
 */
export async function truthHolds(d: Daemon, model: Model, judged: Judged, failedRules: ReadonlySet<string>, step: string): Promise<void> {
  const want = expected(model);
  const have = await firingNow(d);
  const failing = new Set<string>();
  for (const rule of MODELLED) for (const e of d.app.failures.entities(rule)) failing.add(`${rule}/${e.entity}`);
  const blind = (key: string) => {
    const [rule, entity] = key.split('/') as [string, string];
    return failedRules.has(rule) || failing.has(`${rule}/${entity.split(':')[0]}`) || failing.has(key);
  };
  // health-off reads what health reads: failing where health does not is its own defect (`uptime: false` mishandled).
  const offOnly = [...failing].filter((k) => k.startsWith(`${HEALTH_OFF}/`) && !failing.has(`health/${k.slice(HEALTH_OFF.length + 1)}`));
  if (failedRules.has(HEALTH_OFF) && !failedRules.has('health')) offOnly.push(HEALTH_OFF);
  if (offOnly.length > 0) fail(`${step}: ${HEALTH_OFF} (uptime: false) failed where health, reading the same answer, did not: ${offOnly.join(', ')}`);
  // The tier the daemon holds now (what the next reading's hysteresis starts from), where it read the node.
  for (const [key, t] of want.tiers) if (!blind(key)) t.node.tier = t.tier;
  const keys = new Set([...want.firing.keys(), ...have.keys(), ...judged.verdict.keys()]);
  const ended = new Set(model.nodes.filter((n) => n.status !== 'active').map((n) => n.nodeId));
  const stretch = (judged.stretch ??= new Set());
  for (const key of keys) {
    const node = (key.split('/')[1] as string).split(':')[0] as string;
    if (blind(key) || want.unsure.has(key)) {
      if (judged.verdict.has(key)) stretch.add(key);
      continue;
    }
    const should = want.firing.has(key) ? (want.firing.get(key) ?? 'any') : '';
    const is = have.get(key);
    if (should === '' && is !== undefined) fail(`${step}: ${key} fires (${is}) but the model says it holds no longer`);
    if (should !== '' && is === undefined) fail(`${step}: ${key} should fire${should === 'any' ? '' : ` (${should})`} but does not`);
    if (should !== '' && should !== 'any' && is !== severityOf(should)) fail(`${step}: ${key} fires as ${is}, but ${should} is what the model says`);
    const before = judged.verdict.get(key);
    const sent = judged.since.get(key) ?? [];
    const reminders = judged.reminded?.get(key) ?? [];
    if (reminders.length > 0 && before === '' && should === '' && !stretch.has(key)) fail(`${step}: ${key} was reminded of though the model says it neither fired nor fires: ${notificationsOf(reminders).join(' | ')}`);
    judged.reminded?.delete(key);
    if (before !== undefined && stretch.has(key)) sequenceHolds(key, before, should, sent, step);
    else if (before !== undefined) {
      const changed = (before === '') !== (should === '') || (before !== 'any' && should !== 'any' && before !== should);
      if (!changed && sent.length > 0) fail(`${step}: ${key} sent ${sent.length} notification(s) though nothing changed: ${notificationsOf(sent).join(' | ')}`);
      if (changed && sent.length !== 1) fail(`${step}: ${key} changed (${before || 'not firing'} → ${should || 'not firing'}) and sent ${sent.length} notifications: ${notificationsOf(sent).join(' | ')}`);
    }
    for (const a of sent) {
      if (a.status === 'resolved' && key.endsWith(':uptime') && ended.has(node) && /back (?:above|at)/.test(a.summary)) fail(`${step}: the validation ended, and the uptime alert resolved saying "${a.summary}"`);
    }
    stretch.delete(key);
    judged.verdict.set(key, should);
    judged.since.set(key, []);
  }
}

/**
 * What a key sent over a stretch the model could not judge, from its verdict before to its
 * verdict now: each a firing of what did not fire, a tier change of what fired, or the
 * resolution of what fired; none twice; and it ends firing if and only if the model says so.
 */
function sequenceHolds(key: string, before: string, should: string, sent: readonly AlertMessage[], step: string): void {
  let firing = before !== '';
  const said = () => `${before || 'not firing'} → ${should || 'not firing'}: ${notificationsOf(sent).join(' | ') || 'nothing'}`;
  for (const a of sent) {
    if (a.status === 'resolved' && !firing) fail(`${step}: ${key} resolved what did not fire (${said()})`);
    if (a.status === 'firing' && firing && a.details['Escalated'] === undefined) fail(`${step}: ${key} fired again while it fired (${said()})`);
    firing = a.status === 'firing';
  }
  if (firing !== (should !== '')) fail(`${step}: ${key} is left ${firing ? 'firing' : 'not firing'} by what it sent, but the model says it ${should === '' ? 'holds no longer' : 'fires'} (${said()})`);
}

export { API_TIMEOUT_MS, MAX_TIMER_MS };
