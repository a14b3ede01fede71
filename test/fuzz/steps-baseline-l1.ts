import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { AlertMessage } from '../../src/base/types.js';
import type { State as BaselineState } from '../../src/rules/network-baseline/schema.js';
import { firingNow, notificationsOf, Violation } from './checks.js';
import { poll, type Cmd, type Run } from './commands.js';
import { L1_CHAIN, L1_NODE, L1_SUBNET } from './daemon.js';
import type { Distortion } from './service.js';
import { BASELINE_RULE, bulkIds, BULK_REACHABILITY, BULK_UPTIME, dip, L1_RULE, TIP_MS } from './world-40.js';
import { watched, type Model } from './world.js';

// Issue 40: the network baseline and an L1's liveness (world-40.ts puts both rules in the fuzz
// world). A dip of the network, sweeps read whole, notifies nothing; a failed or short sweep
// keeps the last whole distribution, is stale (`complete: false`), says so once at info after
// `for` and resolves when a whole sweep returns. An L1 tip frozen past frozenAfter is one
// critical `check=frozen` (the model in world.ts holds it, checks.ts judges every clean poll)
// while /ext/health stays healthy, resolved on the thaw; a shorter freeze says nothing; a failed
// proposervm call neither fires nor resolves it and is reported as failing. commands.ts
// registers this file's families and this file uses its steps: import commands.ts first.

const MINUTE = 60_000;
/** The sweep's path (the validator rules' too: a 5xx on it blinds them for the poll). */
const SWEEP_PATH = '^/v1/networks/mainnet/validators$';
const FROZEN_KEY = `${L1_RULE}/${L1_SUBNET}/frozen`;

async function advance(model: Model, run: Run, ms: number, step: string, clean: boolean): Promise<void> {
  run.d.world.clock.advance(ms);
  model.nowMs += ms;
  await poll(run, model, step, clean);
}

function said(run: Run, from: number, rule: string): AlertMessage[] {
  return run.d.notifications.slice(from).filter((a) => a.rule === rule && !a.reminder && a.labels['alertname'] !== 'rule-failing');
}

function baselineOf(run: Run): BaselineState | undefined {
  return run.d.app.engine.view(BASELINE_RULE)?.states.get('mainnet') as BaselineState | undefined;
}

/** Figures of a whole sweep a step can name. */
function figures(st: BaselineState | undefined): string {
  const w = st?.whole;
  return w ? `${w.count} validators, uptime p10 ${w.uptime?.p10} p50 ${w.uptime?.p50}` : 'no whole sweep';
}

/**
 * A share of the network dips (uptime and reachability) for 20 minutes, then recovers; every
 * sweep is whole. network-baseline says nothing; its distribution follows the dip and back.
 */
export class NetworkDip implements Cmd {
  constructor(
    readonly share: number,
    readonly uptime: number,
    readonly reachability: number,
  ) {}
  check = () => true;
  async run(model: Model, run: Run) {
    const step = this.toString();
    const d = run.d;
    await poll(run, model, `${step} (settle)`, true);
    // An earlier step left the baseline stale (a service pausing the Data API): nothing to judge.
    if (!baselineOf(run)?.complete) return;
    const from = d.notifications.length;
    dip(d.world, this.share, this.uptime, this.reachability);
    try {
      await advance(model, run, 10 * MINUTE, `${step} (dipped)`, true);
      const during = baselineOf(run);
      if (!during?.complete) throw new Violation(`${step}: a whole sweep of a dipped network is called not whole: ${during?.why}`);
      const p10 = during.whole?.uptime?.p10 ?? Infinity;
      if (p10 > this.uptime) throw new Violation(`${step}: ${this.share}% of the network at ${this.uptime}% uptime and the baseline's p10 is ${p10} (${figures(during)})`);
      await advance(model, run, 10 * MINUTE, `${step} (dipped, +20m)`, true);
    } finally {
      dip(d.world, 100, BULK_UPTIME, BULK_REACHABILITY);
    }
    await poll(run, model, `${step} (recovered)`, true);
    const after = baselineOf(run);
    if (!after?.complete || after.whole?.uptime?.p50 !== BULK_UPTIME) throw new Violation(`${step}: the network recovered and the baseline says ${after?.complete ? figures(after) : `stale (${after?.why})`}`);
    const spoke = said(run, from, BASELINE_RULE);
    if (spoke.length > 0) throw new Violation(`${step}: a dip of whole sweeps notified from network-baseline: ${notificationsOf(spoke).join(' | ')}`);
  }
  toString = () => `${this.share}% of the network at ${this.uptime}% uptime, ${this.reachability}% reachable for 20m`;
}

/**
 * A sweep that fails (a 5xx on the bulk list) or comes back short (bulk validators dropped from
 * its page), for one poll or, `long`, for 11 minutes (past `for`; a short one of another size
 * each poll, never two alike), then whole again.
 */
export class BadSweep implements Cmd {
  constructor(
    readonly how: 'fail' | 'short',
    readonly long: boolean,
    readonly status = 503,
  ) {}
  check = () => true;
  odd(i: number): Distortion[] {
    if (this.how === 'fail') return [{ kind: 'http', match: SWEEP_PATH, status: this.status }];
    // Only bulk validators: the validator rules' own nodes stay listed, so their verdicts stand.
    return bulkIds()
      .slice(0, i % 2 === 0 ? 20 : 30)
      .map((node): Distortion => ({ kind: 'items', list: 'validators', how: 'drop', node, match: SWEEP_PATH }));
  }
  async run(model: Model, run: Run) {
    const step = this.toString();
    const d = run.d;
    await poll(run, model, `${step} (settle)`, true);
    const before = baselineOf(run);
    if (!before?.complete || !before.whole) return;
    const from = d.notifications.length;
    // A 5xx blinds the validator rules for the poll: their verdicts are not judged then.
    const clean = this.how === 'short';
    const waits = this.long ? [0, 5 * MINUTE, 6 * MINUTE] : [0];
    try {
      for (const [i, ms] of waits.entries()) {
        d.service.set(this.odd(i));
        await advance(model, run, ms, `${step} (odd sweep ${i + 1})`, clean);
        const st = baselineOf(run);
        if (st?.complete) throw new Violation(`${step}: a ${this.how === 'fail' ? 'failed' : 'short'} sweep was taken as whole: ${figures(st)}`);
        if (!isDeepStrictEqual(st?.whole, before.whole)) throw new Violation(`${step}: a ${this.how === 'fail' ? 'failed' : 'short'} sweep changed the stored distribution: ${figures(before)} became ${figures(st)}`);
      }
    } finally {
      d.service.clear();
    }
    await poll(run, model, `${step} (whole again)`, true);
    const back = baselineOf(run);
    if (!back?.complete) throw new Violation(`${step}: a whole sweep came back and the baseline is still stale: ${back?.why}`);
    const spoke = said(run, from, BASELINE_RULE);
    const all = notificationsOf(spoke).join(' | ');
    if (!this.long) {
      if (spoke.length > 0) throw new Violation(`${step}: one odd sweep, shorter than for, notified: ${all}`);
      return;
    }
    const fired = spoke.filter((a) => a.status === 'firing');
    const resolved = spoke.filter((a) => a.status === 'resolved');
    if (fired.length !== 1 || resolved.length !== 1 || spoke.length !== 2) throw new Violation(`${step}: 11 minutes of stale sweeps (for 10m) gave ${fired.length} alert(s) and ${resolved.length} resolution(s), not one of each: ${all}`);
    const [alert] = fired as [AlertMessage];
    if (alert.severity !== 'info' || !/is stale/.test(alert.summary) || alert.labels['network'] !== 'mainnet') throw new Violation(`${step}: the stale baseline was said as other than the stale info condition: ${all}`);
  }
  toString = () => `the network sweep ${this.how === 'fail' ? `answers ${this.status}` : 'comes back short'} ${this.long ? 'for 11m' : 'once'}, then whole`;
}

/** The figures a whole sweep keeps: each a percent, or none. */
function oddFigures(st: BaselineState | undefined): string[] {
  const w = st?.whole;
  if (!w) return [];
  const odd: string[] = [];
  for (const f of ['uptime', 'reachability', 'benched'] as const) {
    for (const [p, x] of Object.entries(w[f] ?? {})) if (!(x >= 0 && x <= 100)) odd.push(`${f} ${p} ${x}`);
  }
  return odd;
}

/**
 * One sweep whose every item carries a figure no percent can be (uptime −1 or 1e308,
 * reachability −1, benched 1e13). The baseline keeps percents only: such a figure is none, never
 * the network dipping (its stake below a threshold does not grow), and nothing is said.
 */
export class OddFigures implements Cmd {
  constructor(
    readonly field: string,
    readonly value: number,
  ) {}
  check = () => true;
  async run(model: Model, run: Run) {
    const step = this.toString();
    const d = run.d;
    await poll(run, model, `${step} (settle)`, true);
    const before = baselineOf(run);
    if (!before?.complete || !before.whole) return;
    const from = d.notifications.length;
    d.service.set([{ kind: 'field', list: 'validators', field: this.field, edge: { set: this.value }, match: SWEEP_PATH }]);
    try {
      // Not clean: the validator rules read the same odd figures of their own nodes.
      await poll(run, model, `${step} (odd sweep)`, false);
    } finally {
      d.service.clear();
    }
    const st = baselineOf(run);
    const odd = oddFigures(st);
    if (odd.length > 0) throw new Violation(`${step}: the baseline keeps figures no percent can be: ${odd.join(', ')}`);
    const worse = (['uptime', 'reachability', 'benched'] as const).filter((f) => (st?.whole?.below[f] ?? 0) > before.whole!.below[f]);
    if (worse.length > 0) throw new Violation(`${step}: an odd figure made the network look dipped: stake below ${worse.map((f) => `${f} ${before.whole!.below[f]}% → ${st?.whole?.below[f]}%`).join(', ')}`);
    await poll(run, model, `${step} (back)`, true);
    if (!baselineOf(run)?.complete) throw new Violation(`${step}: a whole sweep came back and the baseline is stale: ${baselineOf(run)?.why}`);
    const spoke = said(run, from, BASELINE_RULE);
    if (spoke.length > 0) throw new Violation(`${step}: odd figures notified from network-baseline: ${notificationsOf(spoke).join(' | ')}`);
  }
  toString = () => `the network sweep lists every ${this.field} as ${this.value}`;
}

function freeze(model: Model, run: Run): void {
  run.d.world.nodes.set({ nodeId: L1_NODE, l1Chains: { [L1_CHAIN]: { frozen: true } } });
  model.l1Frozen = { key: FROZEN_KEY, node: L1_NODE, tipMs: Math.floor(model.nowMs / TIP_MS) * TIP_MS };
}

function thaw(model: Model, run: Run): void {
  run.d.world.nodes.set({ nodeId: L1_NODE, l1Chains: { [L1_CHAIN]: { frozen: false } } });
  delete model.l1Frozen;
}

/** The L1 node watched, its health green in the model, no tip frozen: a freeze's notifications are its own. */
function l1Quiet(m: Model): boolean {
  const n = m.nodes.find((x) => x.nodeId === L1_NODE);
  return watched(m, L1_NODE) && m.l1Frozen === undefined && n !== undefined && !n.api.failing;
}

/** Whether the frozen alert fires in the store now. */
async function frozenFires(run: Run): Promise<boolean> {
  return (await firingNow(run.d)).has(FROZEN_KEY);
}

/**
 * The L1's tip freezes with /ext/health green, for 5 minutes (under frozenAfter: nothing) or
 * 20 (one critical check=frozen at +16m saying health is green, resolved on the thaw).
 */
export class L1Freeze implements Cmd {
  constructor(
    readonly minutes: 5 | 20,
    /** The config reloaded (as it is) at +10m: how long the tip has stood still survives it. */
    readonly reload = false,
  ) {}
  check = (m: Model) => l1Quiet(m);
  async run(model: Model, run: Run) {
    const step = this.toString();
    const from = run.d.notifications.length;
    freeze(model, run);
    try {
      await poll(run, model, `${step} (frozen)`, true);
      // Polls off the boundary (the model's unsure window): 16 minutes crosses frozenAfter's 15.
      const waits = this.minutes === 5 ? [150_000, 150_000] : [5 * MINUTE, 5 * MINUTE, 6 * MINUTE, 4 * MINUTE];
      let at = 0;
      for (const ms of waits) {
        await advance(model, run, ms, `${step} (frozen, +${(at += ms) / 1000}s)`, true);
        if (this.reload && at === 10 * MINUTE && !(await run.d.app.reload(`fuzz ${step}`))) throw new Violation(`${step}: the reload was refused: ${run.d.logs.slice(-3).join('')}`);
      }
    } finally {
      thaw(model, run);
    }
    await poll(run, model, `${step} (thawed)`, true);
    const spoke = said(run, from, L1_RULE);
    const all = notificationsOf(spoke).join(' | ');
    if (this.minutes === 5) {
      if (spoke.length > 0) throw new Violation(`${step}: a tip frozen for less than frozenAfter notified: ${all}`);
      return;
    }
    const fired = spoke.filter((a) => a.status === 'firing');
    const resolved = spoke.filter((a) => a.status === 'resolved');
    if (fired.length !== 1 || resolved.length !== 1 || spoke.length !== 2) throw new Violation(`${step}: ${fired.length} alert(s) and ${resolved.length} resolution(s) from l1-liveness, not one check=frozen and its resolution: ${all}`);
    const [alert] = fired as [AlertMessage];
    if (alert.labels['check'] !== 'frozen' || alert.labels['chain'] !== L1_CHAIN) throw new Violation(`${step}: the frozen tip fired as other than check=frozen of chain ${L1_CHAIN}: ${all}`);
    if (!alert.summary.includes('/ext/health answers healthy')) throw new Violation(`${step}: the frozen alert does not say the node's health is green (it is): ${alert.summary}`);
  }
  toString = () => `the L1's tip frozen for ${this.minutes}m with its health green${this.reload ? ', the config reloaded at +10m' : ''}, then thawed`;
}

/**
 * The proposervm call fails for one poll (a 5xx, or 404: the chain not found): `crossing`, the
 * poll when a frozen tip passes frozenAfter (no fire then: the next whole reading fires);
 * `thawing`, the poll after a fired tip thawed (no resolution then: the next one resolves).
 * Either way the L1 is reported as failing, and nothing is said in the odd poll.
 */
export class L1CallFails implements Cmd {
  constructor(
    /** `zeros`: an all-zero epoch (what a node answers before its chain has a Granite block, e.g. restarting). */
    readonly status: 404 | 502 | 503 | 'zeros',
    readonly when: 'crossing' | 'thawing',
  ) {}
  check = (m: Model) => l1Quiet(m);
  async run(model: Model, run: Run) {
    const step = this.toString();
    const d = run.d;
    freeze(model, run);
    const match = `^/node/${L1_NODE}/ext/bc/${L1_CHAIN}/proposervm$`;
    const odd: Distortion =
      this.status === 'zeros'
        ? { kind: 'node', match, field: 'result', edge: { set: { number: '0', startTime: '0', pChainHeight: '0' } } }
        : this.status === 404
          ? { kind: 'http', match, status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: '404 page not found\n' }
          : { kind: 'http', match, status: this.status };
    try {
      await poll(run, model, `${step} (frozen)`, true);
      await advance(model, run, 10 * MINUTE, `${step} (frozen, +10m)`, true);
      if (this.when === 'thawing') {
        await advance(model, run, 6 * MINUTE, `${step} (frozen, +16m)`, true);
        thaw(model, run);
      }
      const was = await frozenFires(run);
      const from = d.notifications.length;
      d.service.set([odd]);
      try {
        // Not clean: the L1's verdict is held, not judged, while its tip cannot be read.
        await advance(model, run, this.when === 'crossing' ? 6 * MINUTE : MINUTE, `${step} (proposervm ${this.status})`, false);
      } finally {
        d.service.clear();
      }
      const spoke = said(run, from, L1_RULE);
      if (spoke.length > 0) throw new Violation(`${step}: a failed proposervm call notified: ${notificationsOf(spoke).join(' | ')}`);
      if ((await frozenFires(run)) !== was) throw new Violation(`${step}: a failed proposervm call ${was ? 'resolved' : 'fired'} the frozen alert`);
      const failing = d.app.failures.entities(L1_RULE).some((e) => e.entity === L1_SUBNET);
      if (!failing) throw new Violation(`${step}: the L1's tip could not be read and l1-liveness does not report it as failing`);
      // The next whole reading says what is true (the model: fired past frozenAfter, or resolved).
      await poll(run, model, `${step} (read again)`, true);
    } finally {
      thaw(model, run);
    }
    await poll(run, model, `${step} (thawed)`, true);
  }
  toString = () => `the L1's proposervm answers ${this.status === 'zeros' ? 'an all-zero epoch' : this.status} for one poll ${this.when === 'crossing' ? 'as its frozen tip passes frozenAfter' : 'after its fired tip thawed'}`;
}

/** The families of this file's steps (registered in commands.ts). */
export const baselineL1Families: Record<string, fc.Arbitrary<Cmd>> = {
  'network-dip': fc.tuple(fc.constantFrom(30, 70), fc.constantFrom(60, 0), fc.constantFrom(40, 100)).map(([s, u, r]) => new NetworkDip(s, u, r)),
  'bad-sweep': fc.tuple(fc.constantFrom<'fail' | 'short'>('fail', 'short'), fc.boolean(), fc.constantFrom(500, 502, 503)).map(([how, long, status]) => new BadSweep(how, long, status)),
  'odd-figures': fc.constantFrom<[string, number]>(['uptimePerformance', -1], ['uptimePerformance', 1e308], ['uptimePerformance', 100.5], ['validatorHealth.reachabilityPercent', -1], ['validatorHealth.benchedPChainRequestsPercent', 1e13]).map(([f, v]) => new OddFigures(f, v)),
  'l1-freeze': fc.tuple(fc.constantFrom<5 | 20>(5, 20), fc.boolean()).map(([m, reload]) => new L1Freeze(m, reload)),
  'l1-call-fails': fc.tuple(fc.constantFrom<404 | 502 | 503 | 'zeros'>(404, 502, 503, 'zeros'), fc.constantFrom<'crossing' | 'thawing'>('crossing', 'thawing')).map(([s, w]) => new L1CallFails(s, w)),
};
