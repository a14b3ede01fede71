import { H1 } from '../helpers/incident-world.js';
import type { Post, Record } from './incidents-model.js';

// Issue 40's invariants, checked against what each receiver got (docs/incidents.md, "What a
// receiver gets") and what the store had firing, minute by minute. Each returns the violations.

/** One child's firing episode in the store: [from, to) in minutes; to undefined while it still fires. */
interface Episode {
  child: string;
  from: number;
  to: number | undefined;
  scopes: Set<string | undefined>;
}

/** An incident open for one receiver: [from, to) from its firing post to its resolution post. */
interface Open {
  scope: string;
  from: number;
  to: number | undefined;
}

const K = 3;
const H1_NAMES = new Set(H1.map((v) => v.name));
/** A poll's slack: a notification may leave one poll after what caused it. */
const SLACK = 2;
/**
 * The shipped grouping's `groupInterval` (5 m per validator, src/commands/init.ts): a warning's
 * resolution soon after its firing waits for it, by design (one happening, one message).
 */
const PACED = 5 + SLACK;

export function episodes(rec: Record): Episode[] {
  const open = new Map<string, Episode>();
  const out: Episode[] = [];
  for (const s of rec.samples) {
    for (const [child, scope] of s.firing) {
      let e = open.get(child);
      if (!e) {
        e = { child, from: s.minute, to: undefined, scopes: new Set() };
        open.set(child, e);
        out.push(e);
      }
      e.scopes.add(scope);
    }
    for (const [child, e] of open) {
      if (!s.firing.has(child)) {
        e.to = s.minute;
        open.delete(child);
      }
    }
  }
  return out;
}

function opens(posts: readonly Post[]): Open[] {
  const out: Open[] = [];
  const now = new Map<string, Open>();
  for (const p of posts) {
    if (p.child !== 'incident' || p.scope === undefined) continue;
    if (p.firing && !now.has(p.scope)) {
      const o = { scope: p.scope, from: p.minute, to: undefined };
      now.set(p.scope, o);
      out.push(o);
    } else if (!p.firing) {
      const o = now.get(p.scope);
      if (o) o.to = p.minute;
      now.delete(p.scope);
    }
  }
  return out;
}

/** Whether an incident of this scope covers the child (`v3/reachability`). */
function covers(scope: string, child: string): boolean {
  const [name, check] = child.split('/') as [string, string];
  const group = /host=(\w+)/.exec(scope);
  if (group) return group[1] === 'h1' && H1_NAMES.has(name);
  return scope === `network-wide validator-health/${check}`;
}

const during = (o: Open, from: number, to: number) => o.from <= to && (o.to === undefined || o.to > from);

export function violations(rec: Record): string[] {
  const out: string[] = [];
  const eps = episodes(rec);

  // 6. A firing child's scope never changes while it fires.
  for (const e of eps) if (e.scopes.size > 1) out.push(`6: ${e.child} from minute ${e.from} changed scope while firing: ${[...e.scopes].join(' → ')}`);

  rec.posts.forEach((posts, r) => {
    const incidents = opens(posts);
    const childPosts = (child: string, firing: boolean, from: number, to: number) => posts.filter((p) => p.child === child && p.firing === firing && p.minute >= from && p.minute <= to);

    for (const e of eps) {
      const end = e.to ?? rec.end;
      // 1. Nothing lost: delivered as firing, or held by an incident this receiver got that covers it.
      const delivered = childPosts(e.child, true, e.from, end + SLACK).length > 0;
      const held = incidents.some((o) => covers(o.scope, e.child) && during(o, e.from, end));
      if (!delivered && !held) out.push(`1: receiver ${r}: ${e.child} fired at minute ${e.from}, neither delivered nor held by an incident it got`);
      // 2. Its resolution is delivered (never held), within the validator's groupInterval.
      if (e.to !== undefined && (delivered || held) && childPosts(e.child, false, e.to, e.to + PACED).length === 0)
        out.push(`2: receiver ${r}: ${e.child} resolved at minute ${e.to}, its resolution never delivered`);
    }

    // 3. Never held longer than the incident.
    for (const o of incidents) {
      if (o.to === undefined) continue;
      const end = o.to;
      for (const e of eps) {
        if (!covers(o.scope, e.child) || e.from > end || (e.to !== undefined && e.to <= end)) continue;
        if (childPosts(e.child, true, e.from, end).length > 0) continue;
        const still = incidents.some((x) => x !== o && covers(x.scope, e.child) && during(x, end, end));
        const released = posts.some((p) => p.child === e.child && p.minute >= end && p.minute <= end + SLACK);
        if (!still && !released) out.push(`3: receiver ${r}: ${e.child} still firing when "${o.scope}" ended at minute ${end}, not released by minute ${end + SLACK}`);
      }
    }

    for (const p of posts) {
      if (p.child !== 'incident' || !p.firing || p.scope === undefined) continue;
      // 4. No surprise page.
      const near = rec.samples.filter((s) => s.minute <= p.minute && s.minute >= p.minute - 1);
      if (/host=h1/.test(p.scope)) {
        const most = Math.max(0, ...near.map((s) => new Set([...s.firing.keys()].map((c) => c.split('/')[0]!).filter((n) => H1_NAMES.has(n))).size));
        if (most < Math.min(K, H1.length)) out.push(`4: receiver ${r}: "${p.scope}" at minute ${p.minute} with only ${most} of host h1's validators firing`);
      } else if (/network/.test(p.scope)) {
        const maxAge = 20;
        const dipped = rec.dipShare.slice(Math.max(0, p.minute - maxAge - 1), p.minute + 1).some((s) => s >= 0.33);
        if (!dipped) out.push(`4: receiver ${r}: "${p.scope}" at minute ${p.minute} while no sweep in the last ${maxAge} minutes could show a third of the network under the threshold`);
      } else out.push(`4: receiver ${r}: an incident of an unknown scope "${p.scope}"`);
    }

    // 7. An incident ends when its last alert does (docs/incidents.md), a restart included:
    // no child that fires with its scope may still fire when the incident's resolution is sent.
    for (const p of posts) {
      if (p.child !== 'incident' || p.firing || p.scope === undefined) continue;
      const scope = /host=/.test(p.scope) ? 'group' : 'network';
      const sample = rec.samples.find((s) => s.minute === p.minute);
      const left = [...(sample?.firing ?? [])].filter(([child, s]) => s === scope && covers(p.scope!, child)).map(([child]) => child);
      if (left.length > 0) out.push(`7: receiver ${r}: "${p.scope}" resolved at minute ${p.minute} while ${left.join(', ')} still fired in it`);
    }

    // 5. One notification per incident: never its firing twice without its resolution between,
    // unless a silence of it covered that time (its resolution was recorded as muted, as
    // Alertmanager's would be: the next firing is news again).
    const state = new Map<string, number | undefined>();
    for (const p of posts) {
      if (p.child !== 'incident' || p.scope === undefined) continue;
      const since = state.get(p.scope);
      const silenced = since !== undefined && rec.silenced.some((s) => s.from <= p.minute && s.to >= since);
      if (p.firing && since !== undefined && !silenced) out.push(`5: receiver ${r}: "${p.scope}" fired again at minute ${p.minute} without resolving`);
      state.set(p.scope, p.firing ? p.minute : undefined);
    }
  });
  return out;
}
