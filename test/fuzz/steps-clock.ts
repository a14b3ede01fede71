import fc from 'fast-check';
import { STEP_MS } from '../../src/base/clock-steps.js';
import { Violation } from './checks.js';
import { apply, poll, type Cmd, type Run } from './commands.js';
import { outboxRows, type Daemon } from './daemon.js';
import { NODE_FOR_MS, versionOld, watched, type Model } from './world.js';

// The host's wall clock steps (an NTP correction, a VM restored from a snapshot): the daemon's
// wall moves, its steady clock and the world (another machine) do not. Nothing it judges by
// age may change; what it judges against a chain's timestamps moves with its wall (world.ts
// `expected` judges those at the daemon's wall).

/** Which requests show that a rule looked (rules sharing an endpoint share its calls); `node`: to the node's own API. */
const CALLS: Array<[string, RegExp, 'service' | 'node']> = [
  ['status, end, health, expr', /\/validators/, 'service'],
  ['blocks', /\/blocks/, 'service'],
  ['sig', /\/signatureAggregator/, 'service'],
  ['node', /\/ext\/(?:health|info)/, 'node'],
];

export interface Asked {
  service: number;
  node: number;
}

export function askedSoFar(d: Daemon): Asked {
  return { service: d.sim.requests.length, node: d.sim.nodeRequests.length };
}

/** Every rule asked since `from`: none reused an answer across the step. */
export function calledEveryRule(d: Daemon, from: Asked, step: string): void {
  const asked = { service: d.sim.requests.slice(from.service), node: d.sim.nodeRequests.slice(from.node) };
  const silent = CALLS.filter(([, path, where]) => !asked[where].some((r) => path.test(r))).map(([rules]) => rules);
  if (silent.length > 0) throw new Violation(`${step}: after the clock step, no call from ${silent.join('; ')} in two polls (${asked.service.length} requests to the service, ${asked.node.length} to the nodes): an old answer taken as fresh`);
}

/** Log lines that tell a wall clock step. */
function stepLines(d: Daemon): string[] {
  return d.logs.filter((l) => l.includes("the host's wall clock stepped"));
}

/**
 * A condition of one node starts holding (or goes on) and a notification waits for its retry
 * (the webhook refused it once); the wall clock steps by `ms`; node-health's `for` of world time
 * passes. The daemon calls the service at every poll, the condition fires after its `for` of
 * steady time (the truth judge holds it to that), the waiting notification is delivered (never
 * dead-lettered for an age it does not have, never held by the step), and a step over a minute
 * is logged once.
 */
export class ClockStep implements Cmd {
  constructor(
    readonly ms: number,
    readonly node: string,
  ) {}
  check = (m: Model) => watched(m, this.node);
  async run(model: Model, run: Run) {
    const step = this.toString();
    const hook = run.d.providers.webhook;
    hook.misbehave({ kind: 'error', status: 503 }, 1);
    try {
      apply(model, run, { what: 'api-failing', node: this.node, value: true });
      const n = model.nodes.find((x) => x.nodeId === this.node);
      apply(model, run, { what: 'version', node: this.node, value: n && versionOld(n.version) ? 'avalanchego/1.14.1' : 'avalanchego/1.13.2' });
      await poll(run, model, `${step} (a for: starts, a notification waits)`, true);
    } finally {
      hook.calm();
    }
    const waiting = new Map(outboxRows(run.d).filter((r) => r.state === 'pending').map((r) => [r.id, r.attempts]));
    const lines = stepLines(run.d).length;
    const from = askedSoFar(run.d);
    run.d.world.clock.stepWall(this.ms);
    model.wallStepMs = (model.wallStepMs ?? 0) + this.ms;
    await poll(run, model, `${step} (stepped)`, true);
    run.d.world.clock.advance(NODE_FOR_MS);
    model.nowMs += NODE_FOR_MS;
    await poll(run, model, `${step} (+${NODE_FOR_MS / 1000}s, its for:)`, true);
    calledEveryRule(run.d, from, step);
    // A row may fail again (a provider slow under load): what matters is that it was tried, and not for its age.
    const now = run.d.world.clock.nowMs();
    for (const r of outboxRows(run.d).filter((row) => waiting.has(row.id))) {
      if (r.state === 'dead' && /undelivered after|expired/i.test(r.last_error ?? '')) throw new Violation(`${step}: notification ${r.id} to ${r.receiver}, made ${NODE_FOR_MS / 60_000} min before, was dead-lettered for its age: "${r.last_error}"`);
      if (r.state === 'pending' && r.attempts === waiting.get(r.id) && r.next_attempt_at <= now) throw new Violation(`${step}: notification ${r.id} to ${r.receiver} was not tried again though its retry was due ${Math.round((now - r.next_attempt_at) / 1000)} s ago ("${r.last_error}")`);
    }
    const logged = stepLines(run.d).length - lines;
    const want = Math.abs(this.ms) > STEP_MS ? 1 : 0;
    if (logged !== want) throw new Violation(`${step}: the step was logged ${logged} time(s), not ${want}`);
  }
  toString = () => `clock step ${this.ms < 0 ? 'back' : 'forward'} ${Math.abs(this.ms) / 1000}s (for: and a waiting notification on ${this.node.slice(7, 12)})`;
}

/**
 * Seconds to a day, either way; 26 h forward is the step that dead-lettered fresh rows. (A
 * function with its values inside: commands.ts calls it while this module still loads.)
 */
export function clockSteps(node: fc.Arbitrary<string>): fc.Arbitrary<Cmd> {
  const hour = 3600_000;
  const size = fc.constantFrom(-24 * hour, -hour, -90_000, -20_000, 20_000, 90_000, hour, 26 * hour);
  return fc.tuple(size, node).map(([ms, n]) => new ClockStep(ms, n));
}
