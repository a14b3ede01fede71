import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import type { AlertMessage } from '../../src/base/types.js';
import { alive, deliveryHonest, falseNotifications, keyOf, noSecrets, notificationsOf, timersCapped, truthHolds, Violation, type Judged, type Watch } from './checks.js';
import { settleDelivery, type Daemon } from './daemon.js';
import { metricsSteps } from './steps-metrics.js';
import { clockSteps } from './steps-clock.js';
import { outageSteps } from './steps-outage.js';
import { expireSteps } from './steps-expire.js';
import { PROVIDERS, type Misbehaviour, type Provider } from './receivers.js';
import type { Distortion, Edge } from './service.js';
import { reloadSteps } from './steps-reload.js';
import { deadDeliverySaid, deliveryNodeFamilies } from './steps-delivery-node.js';
import { healthFamilies } from './steps-health.js';
import { node115Families } from './steps-node-115.js';
import { baselineL1Families } from './steps-baseline-l1.js';
import { addBlock, FAILING_CHECK, NODES, syncNode, syncNodeApi, txHashOf, UPTIME_HYSTERESIS, UPTIME_WARNING, versionOld, watchedActive, type Model, type NodeModel } from './world.js';

// The steps the fuzzer takes, each a fast-check command over the model (what is true) and
// the running daemon. Every step ends with the invariants of checks.ts.

export interface Run {
  d: Daemon;
  w: Watch;
  judged: Judged;
  steps: number;
}

export interface Polled {
  alerts: AlertMessage[];
  failed: Set<string>;
}

/** A file that gets every step as it starts (a run that kills the process still says where). */
const TRACE = process.env['AVAWATCH_FUZZ_TRACE'];
const VALIDATOR_RULES = ['status', 'end', 'health'];

type Evaluation = Awaited<ReturnType<Daemon['app']['once']>>;

/** One evaluation of every rule, then delivery until quiet, then the invariants. */
export async function poll(run: Run, model: Model, step: string, clean: boolean, evaluate: () => Promise<Evaluation> = () => run.d.app.once()): Promise<Polled> {
  run.steps++;
  if (TRACE) appendFileSync(TRACE, `${new Date().toISOString()} ${step}\n`);
  run.w.loop.reset();
  const t0 = Date.now();
  const { alerts, failures } = await evaluate();
  const t1 = Date.now();
  run.d.notifications.push(...alerts);
  for (const a of alerts) {
    const key = keyOf(a);
    // A reminder (a repeat, Alertmanager's resend) says again what fires: no change to count.
    const into = a.reminder ? (run.judged.reminded ??= new Map()) : run.judged.since;
    if (key) into.set(key, [...(into.get(key) ?? []), a]);
  }
  const failed = new Set(failures.map((f) => f.rule));
  await settleDelivery(run.d);
  const t2 = Date.now();
  await alive(run.d, run.w, step);
  timersCapped(run.w, step);
  deliveryHonest(run.d, step);
  deadDeliverySaid(run.d, step);
  await noSecrets(run.d, step);
  if (clean) await truthHolds(run.d, model, run.judged, failed, step);
  if (TRACE) appendFileSync(TRACE, `   once ${t1 - t0} ms, settle ${t2 - t1} ms, checks ${Date.now() - t2} ms\n`);
  return { alerts, failed };
}

export type Cmd = fc.AsyncCommand<Model, Run>;

export class Poll implements Cmd {
  check = () => true;
  async run(model: Model, run: Run) {
    await poll(run, model, this.toString(), true);
  }
  toString = () => 'poll';
}

export class Advance implements Cmd {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(model: Model, run: Run) {
    run.d.world.clock.advance(this.ms);
    model.nowMs += this.ms;
    await poll(run, model, this.toString(), true);
  }
  toString = () => `advance ${this.ms / 1000}s`;
}

export type Change =
  | { what: 'uptime'; node: string; value: number }
  | { what: 'api-failing' | 'api-other'; node: string; value: boolean }
  | { what: 'api-stake'; node: string; value: number }
  | { what: 'version'; node: string; value: string }
  | { what: 'capacity'; node: string; value: string }
  | { what: 'block' | 'end' | 'restake'; node: string };

/** A real change in the world: the model moves with it, and the daemon must tell it once. */
export function apply(model: Model, run: Run, c: Change): void {
  const n = model.nodes.find((x) => x.nodeId === c.node);
  if (!n) return;
  const nowS = Math.floor(model.nowMs / 1000);
  if (c.what === 'block') return addBlock(run.d.world, n, nowS);
  if (c.what === 'api-failing' || c.what === 'api-other' || c.what === 'api-stake') return applyApi(model, run, n, c);
  if (c.what === 'end') {
    if (n.status !== 'active') return;
    n.status = 'completed';
    n.tier = undefined;
    return syncNode(run.d.world, n, false);
  }
  if (c.what === 'restake') {
    if (n.status === 'active') return;
    // A new period: its uptime is judged afresh (no hysteresis carried over).
    Object.assign(n, { status: 'active', periods: n.periods + 1, start: nowS, end: nowS + 200 * 86_400, uptime: 99.5, tier: undefined });
    n.txHash = txHashOf(n.nodeId, n.periods);
    return syncNode(run.d.world, n, true);
  }
  if (n.status !== 'active') return;
  if (c.what === 'uptime') n.uptime = c.value;
  if (c.what === 'version') n.version = c.value;
  if (c.what === 'capacity') n.capacity = c.value;
  syncNode(run.d.world, n, false);
}

/** The node's own view changes; a condition's holding starts now (or goes on, or ends). */
function applyApi(model: Model, run: Run, n: NodeModel, c: Extract<Change, { what: 'api-failing' | 'api-other' | 'api-stake' }>): void {
  const what = c.what === 'api-failing' ? 'failing' : c.what === 'api-other' ? 'other' : 'stake';
  if (c.what === 'api-stake') n.api.stake = c.value;
  else n.api[what as 'failing' | 'other'] = c.value;
  const holds = what === 'stake' ? n.api.stake < 90 : n.api[what as 'failing' | 'other'];
  if (!holds) delete n.api.since[what];
  else n.api.since[what] ??= model.nowMs;
  syncNodeApi(run.d.world, n);
}

const short = (node: string) => node.slice(7, 12);

export class Real implements Cmd {
  constructor(readonly change: Change) {}
  check = () => true;
  async run(model: Model, run: Run) {
    apply(model, run, this.change);
    await poll(run, model, this.toString(), true);
  }
  toString = () => `real ${this.change.what} ${short(this.change.node)}${'value' in this.change ? ` = ${this.change.value}` : ''}`;
}

/**
 * An answer odd for one poll and normal again: a settled poll, the odd one, a clean one.
 * Neither of the last two may notify (a probe's own failure excepted under HTTP faults), and
 * a distortion of one node's items may fail that node only.
 */
export class Blip implements Cmd {
  constructor(readonly distortions: Distortion[]) {}
  check = () => true;
  async run(model: Model, run: Run) {
    const step = this.toString();
    const settled = await poll(run, model, `${step} (settle)`, true);
    run.d.service.set(this.distortions);
    let odd: Polled;
    try {
      odd = await poll(run, model, `${step} (odd poll)`, false);
    } finally {
      run.d.service.clear();
    }
    const http = this.distortions.some((d) => d.kind === 'http');
    const bad = falseNotifications(odd.alerts, http);
    if (bad.length > 0) throw new Violation(`${step}: the odd answer notified: ${notificationsOf(bad).join(' | ')}`);
    // Isolation is judged when nothing else could fail the rule: only this node's items are odd, and it read well just before.
    const target = this.distortions[0];
    const oneNode = target?.kind === 'field' && target.list === 'validators' && target.node !== undefined && this.distortions.every((d) => d.kind === 'field' && d.node === target.node);
    if (oneNode && target.kind === 'field') {
      const blinded = VALIDATOR_RULES.filter((r) => odd.failed.has(r) && !settled.failed.has(r));
      if (blinded.length > 0) throw new Violation(`${step}: one node's odd item failed the whole rule(s) ${blinded.join(', ')}: every other node went unwatched`);
      for (const r of VALIDATOR_RULES) {
        const others = run.d.app.failures.entities(r).filter((e) => e.entity !== target.node);
        if (others.length > 0) throw new Violation(`${step}: one node's odd item failed other nodes of ${r}: ${others.map((e) => short(e.entity)).join(', ')}`);
      }
    }
    const back = await poll(run, model, `${step} (back to normal)`, true);
    const after = falseNotifications(back.alerts, http);
    if (after.length > 0) throw new Violation(`${step}: going back to normal notified: ${notificationsOf(after).join(' | ')}`);
  }
  toString = () => `blip ${this.distortions.map(describe).join(' + ')}`;
}

/** Uptime jittering around a level: after the first crossing, no message per poll. */
export class Jitter implements Cmd {
  constructor(
    readonly node: string,
    readonly around: number,
  ) {}
  check = (m: Model) => watchedActive(m, this.node);
  async run(model: Model, run: Run) {
    const step = this.toString();
    const sent: AlertMessage[] = [];
    for (const [i, value] of [-0.1, 0.1, -0.1, 0.1, -0.1].entries()) {
      apply(model, run, { what: 'uptime', node: this.node, value: this.around + value });
      const { alerts } = await poll(run, model, `${step} #${i + 1}`, true);
      if (i > 0) sent.push(...alerts.filter((a) => a.rule === 'health' && a.labels['node'] === this.node && a.labels['check'] === 'uptime'));
    }
    if (sent.length > 0) throw new Violation(`${step}: uptime alternating ±0.1 around ${this.around}% sent ${sent.length} message(s): ${notificationsOf(sent).join(' | ')}`);
    apply(model, run, { what: 'uptime', node: this.node, value: 99.5 });
    await poll(run, model, `${step} (recovered)`, true);
  }
  toString = () => `jitter uptime of ${short(this.node)} around ${this.around}%`;
}

/** A provider misbehaves while there is something to send, then time passes for retries. */
export class Trouble implements Cmd {
  constructor(
    readonly provider: Provider,
    readonly m: Misbehaviour,
    readonly times: number,
    readonly node: string,
  ) {}
  check = (m: Model) => watchedActive(m, this.node);
  async run(model: Model, run: Run) {
    const step = this.toString();
    const p = run.d.providers[this.provider];
    p.misbehave(this.m, this.times);
    try {
      const n = model.nodes.find((x) => x.nodeId === this.node);
      const flip = n && versionOld(n.version) ? 'avalanchego/1.14.1' : 'avalanchego/1.13.2';
      apply(model, run, { what: 'version', node: this.node, value: flip });
      await poll(run, model, `${step} (a change to send)`, true);
      for (const ms of [2_000, 60_000, 15 * 60_000]) {
        run.d.world.clock.advance(ms);
        model.nowMs += ms;
        await poll(run, model, `${step} (+${ms / 1000}s)`, true);
      }
    } finally {
      p.calm();
    }
  }
  toString = () => `${this.provider} ${describeMisbehaviour(this.m)} ×${this.times} (node ${short(this.node)})`;
}

function describe(d: Distortion): string {
  if (d.kind === 'http') return `HTTP ${d.status}${d.headers ? ` ${JSON.stringify(d.headers)}` : ''}${d.delayMs ? ` after ${d.delayMs} ms` : ''}${d.echoHeaders ? ' echoing the request headers' : ''}${d.hugeBytes ? ` ${d.hugeBytes} bytes` : ''}${d.body ? ` body ${d.body.slice(0, 20)}` : ''} on ${d.match}`;
  const who = 'node' in d && d.node ? ` of ${short(d.node)}` : '';
  if (d.kind === 'items') return `${d.list} ${d.how}${who}`;
  if (d.kind === 'node') return `${d.match} ${d.field} ${JSON.stringify(d.edge)}`;
  return `${d.list}.${d.field}${who} ${JSON.stringify(d.edge)}`;
}

function describeMisbehaviour(m: Misbehaviour): string {
  if (m.kind === 'too-many') return `429 wait ${m.waitSeconds}s`;
  if (m.kind === 'slow') return `answers after ${m.ms} ms`;
  if (m.kind === 'huge') return `${m.status} with ${m.bytes} bytes`;
  return `${m.kind} ${m.status}`;
}

// ---- what the fuzzer draws from

const node = fc.constantFrom(...NODES);
const some = <T>(...v: T[]) => fc.constantFrom(...v);

const validatorEdges: Array<[string, Edge[]]> = [
  ['uptimePerformance', [{ omit: true }, { set: -1 }, { set: 100.5 }, { set: 1e13 }, { set: 1e308 }]],
  ['avalancheGoVersion', [{ omit: true }, { set: '' }]],
  ['delegationCapacity', [{ omit: true }, { set: '-5000000000000' }, { set: '' }]],
  ['validatorHealth', [{ omit: true }]],
  ['validatorHealth.reachabilityPercent', [{ set: -1 }, { set: 1e308 }]],
  ['validatorHealth.benchedPChainRequestsPercent', [{ set: 1e13 }]],
  ['delegatorCount', [{ set: 300_000_000 }, { set: 1e13 }]],
  ['startTimestamp', [{ scale: 1000 }, { set: 'not-a-number' }, { set: 1e13 }]],
  ['endTimestamp', [{ scale: 1000 }, { set: 1e308 }, { set: 1e13 }, { set: -1 }]],
  ['validationStatus', [{ set: 'ACTIVE' }]],
  ['potentialRewards', [{ omit: true }]],
  ['amountDelegated', [{ omit: true }]],
];

const fieldBlip: fc.Arbitrary<Distortion> = fc
  .tuple(fc.constantFrom(...validatorEdges), fc.nat(), fc.option(node, { nil: undefined }))
  .map(([[field, edges], i, n]) => ({ kind: 'field', list: 'validators', field, edge: edges[i % edges.length] as Edge, ...(n ? { node: n } : {}) }));

const blockBlip: fc.Arbitrary<Distortion> = fc.record({
  kind: fc.constant('field' as const),
  list: fc.constant('blocks' as const),
  field: fc.constant('blockTimestamp'),
  edge: some<Edge>({ scale: 1000 }, { shift: 86_400 }),
  node,
});

const itemsBlip: fc.Arbitrary<Distortion> = fc.oneof(
  fc.record({ kind: fc.constant('items' as const), list: some<'validators' | 'blocks'>('validators', 'blocks'), how: some<'repeat' | 'reverse'>('repeat', 'reverse') }),
  fc.record({ kind: fc.constant('items' as const), list: fc.constant('validators' as const), how: fc.constant('drop' as const), node, match: fc.constant('/validators$') }),
  fc.constant<Distortion>({ kind: 'items', list: 'validators', how: 'flood' }),
);

/** A node's own answer, odd for one poll: a figure at an edge or left out, a failing check left out, a NodeID that is none. */
const nodeEdges: Array<[string, string, Edge[]]> = [
  ['/ext/info$', 'result.rewardingStakePercentage', [{ omit: true }, { set: '1e13' }, { set: -1 }, { set: 'NaN' }, { set: '' }]],
  ['/ext/info$', 'result.weightedAveragePercentage', [{ set: '100.5' }]],
  ['/ext/info$', 'result.numPeers', [{ set: '18446744073709551615' }, { set: -5 }]],
  ['/ext/info$', 'result.nodeID', [{ set: 'NodeID-x' }, { set: '' }]],
  ['/ext/info$', 'result.version', [{ omit: true }, { set: '' }]],
  ['/ext/info$', 'result.isBootstrapped', [{ set: 'yes' }]],
  ['/ext/health$', `checks.${FAILING_CHECK}`, [{ omit: true }]],
  ['/ext/health$', 'checks', [{ set: {} }]],
];
const nodeBlip: fc.Arbitrary<Distortion> = fc
  .tuple(fc.constantFrom(...nodeEdges), fc.nat())
  .map(([[where, field, edges], i]) => ({ kind: 'node', match: where, field, edge: edges[i % edges.length] as Edge }));

const match = some('.', '/validators', '/blocks$', '/signatureAggregator', '/ext/health$', '/ext/info$');
const httpBlip: fc.Arbitrary<Distortion> = fc.oneof(
  fc.record({ kind: fc.constant('http' as const), match, status: fc.constant(429), headers: some({ 'retry-after': '1' }, { 'retry-after': '30' }, { 'retry-after': '3000000' }, { 'retry-after': 'soon' }) }),
  fc.record({ kind: fc.constant('http' as const), match, status: some(500, 502, 503) }),
  fc.record({ kind: fc.constant('http' as const), match, status: fc.constant(200), body: some('<html>upstream</html>', '{"validators": [1, 2', '') }),
  fc.record({ kind: fc.constant('http' as const), match, status: fc.constant(200), hugeBytes: fc.constant(8 * 1024 * 1024) }),
  fc.record({ kind: fc.constant('http' as const), match, status: fc.constant(200), delayMs: fc.constant(2_000) }),
  fc.record({ kind: fc.constant('http' as const), match, status: some(502, 500), echoHeaders: fc.constant(true) }),
);

const change: fc.Arbitrary<Change> = fc.oneof(
  // At the warning level, just under it, within its hysteresis, just past it; under the requirement; past saving.
  fc.record({ what: fc.constant('uptime' as const), node, value: some(99.5, UPTIME_WARNING + UPTIME_HYSTERESIS, UPTIME_WARNING + UPTIME_HYSTERESIS / 2, UPTIME_WARNING, UPTIME_WARNING - 0.1, 50, 0) }),
  fc.record({ what: fc.constant('version' as const), node, value: some('avalanchego/1.14.1', 'avalanchego/1.13.2', 'avalanchego/1.14.0-rc.3') }),
  fc.record({ what: fc.constant('capacity' as const), node, value: some('500000000000', '6948766000000000') }),
  fc.record({ what: some<'block' | 'end' | 'restake'>('block', 'block', 'end', 'restake'), node }),
  fc.record({ what: some<'api-failing' | 'api-other'>('api-failing', 'api-other'), node, value: fc.boolean() }),
  fc.record({ what: fc.constant('api-stake' as const), node, value: some(100, 85, 70) }),
);

const misbehaviour: fc.Arbitrary<Misbehaviour> = fc.oneof(
  fc.record({ kind: fc.constant('too-many' as const), waitSeconds: some(1, 90_000, 3_000_000) }),
  fc.record({ kind: fc.constant('error' as const), status: some(500, 503) }),
  fc.record({ kind: fc.constant('slow' as const), ms: fc.constant(600) }),
  fc.record({ kind: fc.constant('huge' as const), status: some(200, 500), bytes: fc.constant(64 * 1024 * 1024) }),
  fc.record({ kind: fc.constant('redirect' as const), status: some(301, 307) }),
  fc.record({ kind: fc.constant('echo' as const), status: some(400, 500) }),
);

/** The families of steps, by name (AVAWATCH_FUZZ_STEPS=blip,trouble runs only those). */
export const families: Record<string, fc.Arbitrary<Cmd>> = {
  poll: fc.constant(new Poll()),
  advance: some(30_000, 5 * 60_000, 3600_000, 3 * 3600_000).map((ms) => new Advance(ms)),
  real: change.map((c) => new Real(c)),
  blip: fc.array(fc.oneof({ arbitrary: fieldBlip, weight: 4 }, { arbitrary: blockBlip, weight: 2 }, itemsBlip, httpBlip, { arbitrary: nodeBlip, weight: 2 }), { minLength: 1, maxLength: 2 }).map((d) => new Blip(d)),
  jitter: fc.tuple(node, some(85, 90)).map(([n, a]) => new Jitter(n, a)),
  trouble: fc.tuple(fc.constantFrom(...PROVIDERS), misbehaviour, some(1, 3, 20), node).map(([p, m, t, n]) => new Trouble(p, m, t, n)),
  reload: fc.constant(0).chain(() => reloadSteps), // lazily: steps-reload.ts imports this file
  ...deliveryNodeFamilies,
  ...healthFamilies,
  ...node115Families,
  ...baselineL1Families,
  metrics: metricsSteps(node),
  clock: clockSteps(node),
  outage: fc.constant(0).chain(() => outageSteps), // lazily: steps-outage.ts imports this file
  expire: fc.constant(0).chain(() => expireSteps), // lazily: steps-expire.ts imports this file
};

export function commandsOf(names: readonly string[]): Array<fc.Arbitrary<Cmd>> {
  return names.map((n) => {
    const f = families[n];
    if (!f) throw new Error(`no step family ${n}: ${Object.keys(families).join(', ')}`);
    return f;
  });
}

/**
 * The first poll: every rule's baseline, and the world as the model starts it. Each endpoint
 * rule is evaluated beside the others (as the daemon's scheduler runs rules), so the start of
 * its expression process (half a second) overlaps theirs instead of following it.
 */
export async function baseline(model: Model, run: Run): Promise<void> {
  const { app } = run.d;
  const apart = app.rules.filter((r) => r.kind === 'endpoint').map((r) => r.name);
  const rest = app.rules.map((r) => r.name).filter((name) => !apart.includes(name));
  const evaluate = async (): Promise<Evaluation> => {
    const each = await Promise.all([rest, ...apart.map((name) => [name])].map((names) => app.once(names)));
    return { alerts: each.flatMap((e) => e.alerts), failures: each.flatMap((e) => e.failures), results: each.flatMap((e) => e.results) };
  };
  await poll(run, model, 'baseline', true, evaluate);
}
