import fc from 'fast-check';
import type { State as NodeState } from '../../src/rules/node-health/schema.js';
import { Violation } from './checks.js';
import { Advance, poll, Real, type Run } from './commands.js';
import { outboxRows, settleDelivery, type Daemon } from './daemon.js';
import { PROVIDERS, type Provider } from './receivers.js';
import type { Distortion } from './service.js';
import { NODE_FOR_MS, NODES, versionOld, watched, watchedActive, type Model } from './world.js';

// Issue 37: the path out and the node's API as they really fail. A receiver revoked for good
// (404 on every post) or answering 503 for an hour; the node's API behind a proxy answering
// its HTML error page (503 or 502), switched off (404), or answering huge. The invariant:
// while a receiver's notifications are dead, the heartbeat fails and /readyz says so, naming it.
// commands.ts registers these families and this file uses its steps: import commands.ts first.

type Cmd = fc.AsyncCommand<Model, Run>;

const short = (node: string) => node.slice(7, 12);
/** A dead letter fails its receiver for delivery.deadLetterHold (24 h); judged well inside it (a wall-clock step may shorten what the daemon counts). */
const JUDGED_WITHIN_MS = 12 * 3600_000;

/**
 * Every receiver with a notification dead-lettered since its last delivered one is named by
 * blindness() (the heartbeat's failure ping) and by readiness() (/readyz, the page). A dead
 * letter stamped the same millisecond as a delivery (the simulator's clock stands still
 * while delivery settles) may have come first: not judged here (Revoked judges its own).
 */
export function deadDeliverySaid(d: Daemon, step: string): void {
  const now = d.world.clock.nowMs();
  const rows = outboxRows(d);
  const blind = d.app.blindness();
  const problems = d.app.readiness().problems;
  // A receiver a reload removed is no longer delivered to: nothing to say of it.
  const configured = new Set(d.app.delivery.receivers());
  for (const p of PROVIDERS.filter((x) => configured.has(x))) {
    const mine = rows.filter((r) => r.receiver === p);
    const lastSent = Math.max(-1, ...mine.filter((r) => r.state === 'sent').map((r) => r.updated_at));
    const dead = mine.filter((r) => r.state === 'dead' && r.updated_at > lastSent && now - r.updated_at < JUDGED_WITHIN_MS);
    if (dead.length === 0) continue;
    const named = (lines: readonly string[] | 'starting') => lines !== 'starting' && lines.some((l) => l.startsWith(`receiver ${p}:`));
    if (!named(blind)) throw new Violation(`${step}: ${dead.length} notification(s) to ${p} dead-lettered ("${dead[0]?.last_error}") and none delivered since, but the heartbeat says ${blind === 'starting' ? 'starting' : blind.length === 0 ? '"every source answered"' : JSON.stringify(blind)}`);
    if (!named(problems)) throw new Violation(`${step}: ${p}'s notifications are dead-lettered but /readyz does not say so: ${JSON.stringify(problems)}`);
  }
}

function named(d: Daemon, provider: Provider): boolean {
  const blind = d.app.blindness();
  return blind !== 'starting' && blind.some((l) => l.startsWith(`receiver ${provider}:`));
}

/** A version flip of an active node: one notification to every receiver. */
function flip(model: Model, node: string): Real {
  const n = model.nodes.find((x) => x.nodeId === node);
  // Old to new or new to old: either way a notification (1.14.0-rc.3 is old too).
  return new Real({ what: 'version', node, value: n && versionOld(n.version) ? 'avalanchego/1.14.1' : 'avalanchego/1.13.2' });
}

/**
 * A receiver failing every post with `status` while a change of `node` is sent (`during`), then
 * answering again (`after`).
 */
abstract class ReceiverDown implements Cmd {
  constructor(
    readonly provider: Provider,
    readonly node: string,
  ) {}
  protected abstract readonly status: number;
  check = (m: Model) => watchedActive(m, this.node);
  protected abstract during(model: Model, run: Run, step: string): Promise<void>;
  protected abstract after(model: Model, run: Run, step: string): Promise<void>;
  /** The last outbox row before the step: a receiver judged failing must have been owed something since. */
  protected before = 0;
  /** Whether a notification was queued for the provider during the step (a blind service may have seen no flip to send). */
  protected owed(run: Run): boolean {
    return outboxRows(run.d).some((r) => r.receiver === this.provider && r.id > this.before);
  }
  async run(model: Model, run: Run) {
    const step = this.toString();
    const p = run.d.providers[this.provider];
    this.before = Math.max(0, ...outboxRows(run.d).map((r) => r.id));
    p.misbehave({ kind: 'error', status: this.status }, 1_000_000);
    try {
      await flip(model, this.node).run(model, run);
      await this.during(model, run, step);
    } finally {
      p.calm();
    }
    await this.after(model, run, step);
  }
}

/** A receiver revoked for good: 404 on every post. Its notification is dead-lettered, the heartbeat fails; back, the next one delivered turns it green. */
export class Revoked extends ReceiverDown {
  protected readonly status = 404;
  protected async during(model: Model, run: Run, step: string) {
    deadDeliverySaid(run.d, `${step} (a change sent)`);
    if (!this.owed(run)) return; // nothing was sent to it (the service blind, the flip unseen): nothing to dead-letter
    // On a busy host the 404 may come after the receiver's deadline (the host's time): an unknown
    // outcome, tried again after a backoff on the daemon's clock, which only the steps move.
    for (let i = 0; i < 4 && outboxRows(run.d).some((r) => r.receiver === this.provider && r.state === 'pending'); i++) await new Advance(30_000).run(model, run);
    if (!outboxRows(run.d).some((r) => r.receiver === this.provider && r.state === 'dead')) throw new Violation(`${step}: a 404 on every post dead-lettered nothing`);
    if (!named(run.d, this.provider)) throw new Violation(`${step}: ${this.provider} dead-letters, and the heartbeat does not name it: ${JSON.stringify(run.d.app.blindness())}`);
    await new Advance(60_000).run(model, run);
    deadDeliverySaid(run.d, `${step} (+60s)`);
    if (!named(run.d, this.provider)) throw new Violation(`${step}: a minute after its dead letter, the heartbeat no longer names ${this.provider}`);
  }
  protected async after(model: Model, run: Run, step: string) {
    // The next notification gets through, and the receiver is green again. Only once one did:
    // a flip may send it nothing (unseen, muted, or waiting to join an incident).
    const from = Math.max(0, ...outboxRows(run.d).map((r) => r.id));
    await flip(model, this.node).run(model, run);
    await settleDelivery(run.d);
    if (!outboxRows(run.d).some((r) => r.receiver === this.provider && r.id > from && r.state === 'sent')) return;
    if (named(run.d, this.provider)) throw new Violation(`${step}: ${this.provider} took a notification again, and the heartbeat still names it: ${JSON.stringify(run.d.app.blindness())}`);
  }
  override toString = () => `${this.provider} revoked (404 for good), node ${short(this.node)}`;
}

/** A receiver answering 503 for an hour: failing once every attempt failed for delivery.failingAfter (10m); green at its next delivery. */
export class Unavailable extends ReceiverDown {
  protected readonly status = 503;
  protected async during(model: Model, run: Run, step: string) {
    for (const ms of [2_000, 60_000, 5 * 60_000, 10 * 60_000, 15 * 60_000, 30 * 60_000]) {
      await new Advance(ms).run(model, run);
      deadDeliverySaid(run.d, `${step} (+${ms / 1000}s)`);
    }
    if (!this.owed(run)) return; // nothing was sent to it (the service blind, the flip unseen): no attempt failed
    if (!named(run.d, this.provider)) throw new Violation(`${step}: an hour of 503s to ${this.provider}, and the heartbeat says ${JSON.stringify(run.d.app.blindness())}`);
  }
  protected async after(model: Model, run: Run, step: string) {
    // Its retries (backoffMax 1m) get through.
    await new Advance(2 * 60_000).run(model, run);
    await settleDelivery(run.d);
    if (outboxRows(run.d).some((r) => r.receiver === this.provider && r.state === 'pending')) return; // still waiting its turn: judged by the next step's invariant
    if (named(run.d, this.provider)) throw new Violation(`${step}: ${this.provider} answers again and took what waited, but the heartbeat still names it`);
  }
  override toString = () => `${this.provider} answers 503 for an hour, node ${short(this.node)}`;
}

export type NodeApiFault = 'proxy-503' | 'proxy-502' | 'info-off' | 'health-off' | 'health-huge';

const NGINX_503 = '<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
const HAPROXY_502 = '<html><body><h1>502 Bad Gateway</h1>\nThe server returned an invalid or incomplete response.\n</body></html>\n';

function distortion(fault: NodeApiFault, node: string): Distortion {
  const at = (api: string) => `^/node/${node}/ext/${api}$`;
  const html = { 'content-type': 'text/html' };
  switch (fault) {
    case 'proxy-503':
      return { kind: 'http', match: `^/node/${node}/`, status: 503, headers: html, body: NGINX_503 };
    case 'proxy-502':
      return { kind: 'http', match: `^/node/${node}/`, status: 502, headers: html, body: HAPROXY_502 };
    case 'info-off':
      return { kind: 'http', match: at('info'), status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: '404 page not found\n' };
    case 'health-off':
      return { kind: 'http', match: at('health'), status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: '404 page not found\n' };
    case 'health-huge':
      return { kind: 'http', match: at('health'), status: 200, hugeBytes: 2 * 1024 * 1024 };
  }
}

/**
 * The node's API as a real deployment fails, held past node-health's `for`: what the rule says
 * of it is what it is. Behind a proxy (HTML 503 or 502): the API does not answer, judged with
 * the service's view (down when the service lists no active validation). Switched off (404): said
 * so, never a failing rule. Huge: answered, too large, never "cannot reach". Then back.
 */
export class NodeApiOdd implements Cmd {
  constructor(
    readonly fault: NodeApiFault,
    readonly node: string,
  ) {}
  check = (m: Model) => watched(m, this.node);
  async run(model: Model, run: Run) {
    const step = this.toString();
    const d = run.d;
    const sent: Array<{ status: string; severity: string; summary: string; labels: Record<string, string> }> = [];
    // Not clean: the model knows nothing of this fault (the rest of the invariants hold).
    const once = async (what: string) => {
      const { alerts } = await poll(run, model, `${step} (${what})`, false);
      sent.push(...alerts.filter((a) => a.rule === 'node' && a.labels['node'] === this.node));
      deadDeliverySaid(d, `${step} (${what})`);
    };
    d.service.set([distortion(this.fault, this.node)]);
    try {
      await once('odd');
      d.world.clock.advance(NODE_FOR_MS);
      model.nowMs += NODE_FOR_MS;
      await once(`odd, +${NODE_FOR_MS / 1000}s`);
      const st = d.app.engine.view('node')?.states.get(this.node) as NodeState | undefined;
      const failing = d.app.failures.entities('node').find((e) => e.entity === this.node);
      const active = model.nodes.find((n) => n.nodeId === this.node)?.status === 'active';
      const fired = sent.filter((a) => a.status === 'firing').map((a) => `${a.labels['check']} ${a.severity}: ${a.summary}`);
      if (this.fault === 'proxy-503' || this.fault === 'proxy-502') {
        if (failing) throw new Violation(`${step}: a proxy's error page is read as "cannot see" (${failing.error}), not as the API not answering`);
        if (st?.unreachableSince === undefined) throw new Violation(`${step}: a proxy's error page, and node-health does not say the API does not answer`);
        const api = fired.find((f) => f.startsWith('api '));
        if (!api) throw new Violation(`${step}: the API silent past its \`for\`, and no api alert fired: ${JSON.stringify(fired)}`);
        if (!active && !api.startsWith('api critical') && st.apiVerdict?.view.startsWith('unknown') !== true) throw new Violation(`${step}: the service lists no active validation of the node and its API does not answer, yet it is not "down": ${api}`);
      } else if (this.fault === 'info-off' || this.fault === 'health-off') {
        if (failing) throw new Violation(`${step}: an API switched off fails the rule for the node ("${failing.error}") instead of being said`);
        if (st?.unreachableSince !== undefined) throw new Violation(`${step}: a node answering 404 is called unreachable (${st.unreachable})`);
        if (!fired.some((f) => f.startsWith('api-off ') && f.includes('switched off'))) throw new Violation(`${step}: an API switched off past its \`for\`, and nothing says so: ${JSON.stringify(fired)}`);
      } else {
        if (st?.unreachableSince !== undefined || fired.some((f) => f.startsWith('api '))) throw new Violation(`${step}: a health answer over the cap reads as "cannot reach": ${st?.unreachable ?? fired.join(' | ')}`);
        if (!failing || !/too large/.test(failing.error)) throw new Violation(`${step}: a health answer over the cap is not said to be too large (${failing?.error ?? 'no failure'})`);
      }
    } finally {
      d.service.clear();
    }
    await once('back');
    // Whatever the fault fired is over once the node answers again.
    const firing = (await (await fetch(`${d.app.url}/api/v1/alerts`)).json()) as { alerts: Array<{ rule: string; key: string }> };
    const left = firing.alerts.filter((a) => a.rule === 'node' && (a.key.endsWith(':api') || a.key.endsWith(':api-off')) && a.key.startsWith(this.node));
    if (left.length > 0) throw new Violation(`${step}: the node answers again, and ${left.map((a) => a.key).join(', ')} still fires`);
  }
  toString = () => `node ${short(this.node)} API ${this.fault}`;
}

const node = fc.constantFrom(...NODES);

/** The families of this steps (registered in commands.ts). */
export const deliveryNodeFamilies: Record<string, fc.Arbitrary<Cmd>> = {
  revoked: fc.tuple(fc.constantFrom(...PROVIDERS), node).map(([p, n]) => new Revoked(p, n)),
  unavailable: fc.tuple(fc.constantFrom(...PROVIDERS), node).map(([p, n]) => new Unavailable(p, n)),
  nodeapi: fc.tuple(fc.constantFrom<NodeApiFault>('proxy-503', 'proxy-502', 'info-off', 'health-off', 'health-huge'), node).map(([f, n]) => new NodeApiOdd(f, n)),
};
