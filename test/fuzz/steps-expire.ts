import fc from 'fast-check';
import { Violation } from './checks.js';
import { apply, poll, type Cmd, type Run } from './commands.js';
import { DELIVERY } from './daemon.js';
import { NODES, versionOld, watchedActive, type Model } from './world.js';

// Issue 41: a receiver down longer than delivery.maxAge. What waited for it past maxAge is
// dropped (dead-lettered for its age) and never sent late, alone or in a group with what is
// younger, once the receiver answers again; nothing younger is dropped (checks.ts).

const HOUR = 3600_000;

/** The webhook answers `status` to every attempt while the clock runs past maxAge, then answers again. */
export class Expire implements Cmd {
  constructor(
    readonly node: string,
    readonly status: number,
  ) {}
  check = (m: Model) => watchedActive(m, this.node);
  async run(model: Model, run: Run) {
    const step = this.toString();
    const d = run.d;
    const hook = d.providers.webhook;
    const advance = async (ms: number, what: string) => {
      d.world.clock.advance(ms);
      model.nowMs += ms;
      await poll(run, model, `${step} (${what})`, true);
    };
    hook.misbehave({ kind: 'error', status: this.status }, Number.MAX_SAFE_INTEGER);
    let made: number;
    let ids: Set<number>;
    try {
      const n = model.nodes.find((x) => x.nodeId === this.node);
      apply(model, run, { what: 'version', node: this.node, value: n && versionOld(n.version) ? 'avalanchego/1.14.1' : 'avalanchego/1.13.2' });
      made = d.world.clock.nowMs();
      const { alerts } = await poll(run, model, `${step} (a change to send)`, true);
      ids = new Set(alerts.map((a) => a.alertId));
      // Past maxAge in steps of the clock: each poll lets delivery try again (and fail).
      for (let left = DELIVERY.maxAgeMs + 30 * 60_000; left > 0; left -= 2 * HOUR) await advance(Math.min(2 * HOUR, left), 'the webhook still down');
    } finally {
      hook.calm();
    }
    const from = hook.received.length;
    await advance(60_000, 'the webhook answers again');
    if (ids.size === 0) return;
    const rows = d.db.prepare(`SELECT alert_id, state, last_error FROM outbox WHERE receiver = 'webhook' AND alert_id IN (${[...ids].join(',')})`).all() as Array<{ alert_id: number; state: string; last_error: string | null }>;
    const kept = rows.filter((r) => r.state !== 'dead');
    if (kept.length > 0) throw new Violation(`${step}: ${kept.length} notification(s) made ${Math.round((d.world.clock.nowMs() - made) / 60_000)} min ago, past maxAge (${DELIVERY.maxAgeMs / HOUR} h), are ${kept.map((r) => r.state).join(', ')} (not dropped)`);
    const late = hook.received.slice(from).filter((r) => r.status < 300 && r.ids.some((id) => ids.has(id)));
    if (late.length > 0) throw new Violation(`${step}: the webhook, answering again, was sent alert(s) ${late.flatMap((r) => r.ids.filter((id) => ids.has(id))).join(', ')} past their maxAge`);
  }
  toString = () => `the webhook answers ${this.status} past maxAge (node ${this.node.slice(7, 12)})`;
}

export const expireSteps: fc.Arbitrary<Cmd> = fc.tuple(fc.constantFrom(...NODES), fc.constantFrom(500, 503)).map(([n, s]) => new Expire(n, s));
