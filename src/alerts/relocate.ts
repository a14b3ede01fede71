import type { LoadedRule } from '../config/load.js';
import type { InventoryValidator } from '../inventory/schema.js';
import { nameValidator, validatorOf } from '../inventory/name.js';
import { SEVERITIES, type AlertDraft, type Condition } from '../base/types.js';
import { firedTimes, toDraft, WHEN_FIRED, type ActiveAlert } from './lifecycle.js';
import { alertLabels } from './pipeline/enrich.js';
import type { Planned } from './receivers.js';
import type { Target } from './route.js';
import { watchedSpec } from '../rules/watched.js';

// A reload that removes, renames or relabels a validator (or removes a rule, or changes the
// route) changes what a firing alert is and where it goes. Its receivers are told at the
// reload, not left with a FIRING nothing will resolve: an alert no longer watched ends with a
// notification that says so (never a kind's "back to normal", which would claim a present
// nobody read); a moved one ends at the receivers that lose it and fires at the ones that gain it.

/** One side of a reload: the rule as loaded, and the inventory it was loaded with. */
export interface Side {
  rule: LoadedRule;
  inventory: readonly InventoryValidator[];
  /** Where an alert with these labels goes on this side (enabled receivers, each muted or not). */
  targets: (labels: Record<string, string>) => readonly Target[];
}

export interface RelocateInput {
  before: Side;
  /** Undefined: the rule was removed. */
  after: Side | undefined;
  /** The rule's state alerts (or its rule-failing ones) as stored. */
  active: readonly ActiveAlert[];
  /** Label names the rule's kind sets itself: kept as they are when the inventory's change. */
  kindLabels: readonly string[];
  /** Receivers the new config delivers to. */
  enabled: ReadonlySet<string>;
  now: number;
  /** The new inventory, when `after` is undefined: a network's part of a rule goes when its last validator does. */
  inventoryAfter?: readonly InventoryValidator[];
}

export interface Relocated {
  /** The alerts to keep (moved ones with their new condition); undefined: nothing changed. */
  active: ActiveAlert[] | undefined;
  /** Notifications, each with its own targets (the old receivers' are not the new route's). */
  planned: Planned[];
  /** The rule each planned notification belongs to (the old one for what ended). */
  rules: LoadedRule[];
}

/** Decides, per stored alert, whether it ends, moves or stays, and what each receiver hears. */
export function relocate(o: RelocateInput): Relocated {
  const out: Relocated = { active: [], planned: [], rules: [] };
  let changed = false;
  for (const a of o.active) {
    const fate = fateOf(a.condition, o);
    if (fate.ends !== undefined) {
      changed = true;
      if (a.state === 'firing') ended(a, fate.ends, o, out);
      continue;
    }
    const same = sameCondition(a.condition, fate.condition);
    const moved = a.state === 'firing' ? move(a, same ? a.condition : fate.condition, o, out) : same ? a : { ...a, condition: fate.condition };
    if (moved !== a) changed = true;
    // Stryker disable next-line OptionalChaining: out.active is the array made above until the loop ends
    out.active?.push(moved);
  }
  if (!changed) out.active = undefined;
  return out;
}

type Fate = { ends: string; condition?: undefined } | { ends?: undefined; condition: Condition };

function fateOf(c: Condition, o: RelocateInput): Fate {
  const { before, after } = o;
  const name = before.rule.name;
  if (!after) {
    const listed = (list: readonly InventoryValidator[], id: string) => list.some((v) => v.nodeId === id);
    // Stryker disable next-line ArrayDeclaration: the `?? []` is never taken, inventoryAfter is checked just before
    const left = before.rule.split && o.inventoryAfter && idsOf(c).some((id) => listed(before.inventory, id) && !listed(o.inventoryAfter ?? [], id));
    return { ends: left ? 'removed from the inventory' : `rule ${name} removed` };
  }
  if (after.rule.kind !== before.rule.kind) return { ends: `rule ${name} is now of kind ${after.rule.kind}` };
  const [was, is] = [specText(before.rule), specText(after.rule)];
  const gone = idsOf(c).find((id) => was.includes(`"${id}"`) && !is.includes(`"${id}"`));
  if (gone !== undefined) {
    const listed = (side: Side) => side.inventory.some((v) => v.nodeId === gone || v.validationIds?.includes(gone) || v.rewardAddresses?.includes(gone));
    return { ends: listed(before) && !listed(after) ? 'removed from the inventory' : `no longer selected by rule ${name}` };
  }
  return { condition: renamed(c, before.rule, after.rule, o.kindLabels) };
}

/** Whether the rule watches what the alert is about (an ID its resolved spec names). */
export function watches(rule: LoadedRule, c: Condition): boolean {
  const spec = specText(rule);
  return idsOf(c).some((id) => spec.includes(`"${id}"`));
}

/** What an alert is about: its `node` label (the NodeID, exactly) and its subject as it is (a NodeID, a validation ID, an address). */
function idsOf(c: Condition): string[] {
  const node = c.labels['node'];
  return [...new Set([...(node === undefined ? [] : [node]), c.subject])];
}

/** The rule's spec as JSON: an ID it watches is in it (nodeIds, urls, validationIds…, as resolved from the inventory). */
function specText(rule: LoadedRule): string {
  return JSON.stringify(watchedSpec(rule.spec), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
}

/**
 * The condition as the new rule and inventory name it: the old validator's name, labels and
 * detail taken off, the new one's put on (as the engine names a fresh condition).
 */
function renamed(c: Condition, was: LoadedRule, now: LoadedRule, kindLabels: readonly string[]): Condition {
  const old = validatorOf(was.validators, c);
  const own = new Set([...kindLabels, 'alertname', 'entity', 'node']);
  const given: Record<string, string> = { ...was.labels, ...old?.labels, ...(old ? { validator: old.name } : {}) };
  // Stryker disable next-line MethodExpression,ConditionalExpression,LogicalOperator,StringLiteral: alertLabels below sets rule and severity again
  const others = Object.entries(c.labels).filter(([k]) => k !== 'rule' && k !== 'severity');
  const raw = Object.fromEntries(others.filter(([k, v]) => own.has(k) || given[k] !== v));
  const unname = (text: string) => (old ? text.replace(`${old.name} (${old.nodeId})`, old.nodeId) : text);
  const details = { ...c.details };
  if (old && details['Validator'] === old.name) delete details['Validator'];
  const bare: Condition = { ...c, summary: unname(c.summary), labels: raw, details };
  if (c.resolvedSummary !== undefined) bare.resolvedSummary = unname(c.resolvedSummary);
  const named = nameValidator(now.validators, bare);
  const severity = SEVERITIES.find((x) => x === c.labels['severity']) ?? c.severity ?? now.severity;
  return { ...named, labels: alertLabels(now, named.labels, severity) };
}

function ended(a: ActiveAlert, why: string, o: RelocateInput, out: Relocated): void {
  const c = a.condition;
  const who = validatorOf(o.before.rule.validators, c);
  const name = who ? `${who.name} (${who.nodeId})` : c.subject;
  const fired: Record<string, string> = {};
  for (const [k, v] of Object.entries(c.details)) fired[WHEN_FIRED + k] = v;
  const draft: AlertDraft = {
    ...toDraft({ ...c, summary: `${name} is no longer watched: ${why}` }, 'resolved', {}),
    details: { 'No longer watched': why, 'Was firing': c.summary, ...fired, ...firedTimes(a) },
  };
  plan(out, o.before.rule, draft, c.labels, enabledOf(o.before.targets(c.labels), o));
}

/** The old receivers hear it left them, the new ones hear it fire; a receiver in both hears it fire where it is now. */
function move(a: ActiveAlert, next: Condition, o: RelocateInput, out: Relocated): ActiveAlert {
  const after = o.after as Side;
  const c = a.condition;
  const relabelled = next !== c;
  const was = enabledOf(o.before.targets(c.labels), o);
  const is = after.targets(next.labels);
  const had = new Set(was.map((t) => t.receiver));
  const has = new Set(is.map((t) => t.receiver));
  const lost = was.filter((t) => !has.has(t.receiver));
  const gained = relabelled ? is : is.filter((t) => !had.has(t.receiver));
  if (lost.length === 0 && gained.length === 0) return relabelled ? { ...a, condition: next } : a;
  const why = reasonOf(c.labels, next.labels);
  const since = firedTimes(a);
  // A receiver that knows an alert by its labels (Alertmanager: it forgets one it stops
  // hearing of) keeps the old label set firing unless told it ended: in the group, so in the post, of the new one.
  const endOld = relabelled ? is.filter((t) => had.has(t.receiver) && t.resendMs !== undefined) : [];
  const left: AlertDraft = {
    ...toDraft({ ...c, summary: `${why.to}, still firing: ${c.summary}` }, 'resolved', {}),
    details: { Moved: why.to, ...c.details, ...since },
  };
  if (lost.length > 0) plan(out, o.before.rule, left, c.labels, lost);
  if (endOld.length > 0) plan(out, o.before.rule, left, c.labels, endOld);
  if (gained.length > 0) plan(out, after.rule, toDraft(next, 'firing', { Moved: why.from, ...since }), next.labels, gained);
  const notified = { ...a.notifiedReceivers };
  for (const t of lost) delete notified[t.receiver];
  for (const t of gained) if (!t.mutedBy) notified[t.receiver] = o.now;
  const muted = new Set([...a.mutedReceivers.filter((r) => has.has(r)), ...gained.filter((t) => t.mutedBy).map((t) => t.receiver)]);
  for (const t of gained) if (!t.mutedBy) muted.delete(t.receiver);
  return {
    ...a,
    condition: next,
    notifiedAt: gained.length > 0 ? o.now : a.notifiedAt,
    notifiedReceivers: notified,
    mutedReceivers: [...muted],
    mutedAt: muted.size > 0 ? (a.mutedAt ?? o.now) : null,
  };
}

/** The same alert as a receiver sees it: labels and text (key order aside). */
function sameCondition(a: Condition, b: Condition): boolean {
  const sorted = (r: Record<string, string>) => JSON.stringify(Object.entries(r).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  return a.summary === b.summary && a.resolvedSummary === b.resolvedSummary && sorted(a.labels) === sorted(b.labels) && sorted(a.details) === sorted(b.details);
}

function enabledOf(targets: readonly Target[], o: RelocateInput): Target[] {
  return targets.filter((t) => o.enabled.has(t.receiver));
}

function plan(out: Relocated, rule: LoadedRule, draft: AlertDraft, labels: Record<string, string>, targets: readonly Target[]): void {
  out.planned.push({ draft: { ...draft, labels }, labels, targets: [...targets] });
  out.rules.push(rule);
}

/** "renamed to beta, moved to team infra" (and "renamed from alpha, moved from team core"). */
export function reasonOf(was: Record<string, string>, is: Record<string, string>): { to: string; from: string } {
  const to: string[] = [];
  const from: string[] = [];
  const [a, b] = [was['validator'], is['validator']];
  if (a !== b) {
    to.push(b === undefined ? `no longer named ${a} in the inventory` : a === undefined ? `named ${b}` : `renamed to ${b}`);
    from.push(a === undefined ? `named ${b}` : b === undefined ? `no longer named ${a} in the inventory` : `renamed from ${a}`);
  }
  const keys = [...new Set([...Object.keys(was), ...Object.keys(is)])].filter((k) => k !== 'validator' && was[k] !== is[k]).sort();
  if (keys.length > 0) {
    to.push(`moved to ${keys.map((k) => `${k} ${is[k] ?? '(none)'}`).join(', ')}`);
    from.push(`moved from ${keys.map((k) => `${k} ${was[k] ?? '(none)'}`).join(', ')}`);
  }
  if (to.length === 0) return { to: 'routed elsewhere by the new route', from: 'routed here by the new route' };
  return { to: to.join(', '), from: from.join(', ') };
}
