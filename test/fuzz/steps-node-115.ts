import fc from 'fast-check';
import type { AlertMessage } from '../../src/base/types.js';
import { notificationsOf, Violation } from './checks.js';
import { poll, type Cmd, type Run } from './commands.js';
import { L1_CHAIN, L1_NODE, L1_PLUGIN, L1_SUBNET, L1_VM } from './daemon.js';
import { NODES, watched, type Model } from './world.js';

// Issue 39: the node as AvalancheGo 1.15 is, against the shipped node rules daemon.ts loads
// (node-metrics' disk, poll-success, bad-blocks, SAE and L1 health, node-upgrade's l1s).
// A switched-off health API pages nobody; the C-Chain's switch to SAE retires the bad-block
// rule once, silently after a restart; a refused L1 plugin is one critical naming its chain;
// an idle chain is never paged on its few polls. commands.ts registers this family and this
// file uses its steps: import commands.ts first.

const short = (node: string) => node.slice(7, 12);
const MINUTE = 60_000;
/** Past the client's window in which one metrics read answers the next (shareMs, 5 s): the world's clock stands still between polls. */
const SHARE_MS = 10_000;

/** The fuzz world's disk (src/sim/node.ts `fresh`). */
const DEFAULT_DISK = 62;

/** Nodes whose C-Chain runs SAE now (a switch is one-way: no node goes back to Coreth). */
const switched = new WeakMap<Model, Set<string>>();

function about(a: AlertMessage, node: string): boolean {
  return a.labels['node'] === node || a.subject.includes(node) || a.summary.includes(node);
}

/** The notifications of one node since `from` (reminders apart: they are no change). */
function since(run: Run, from: number, node: string): AlertMessage[] {
  return run.d.notifications.slice(from).filter((a) => !a.reminder && about(a, node));
}

async function advance(model: Model, run: Run, ms: number, step: string, clean: boolean): Promise<void> {
  run.d.world.clock.advance(ms);
  model.nowMs += ms;
  await poll(run, model, step, clean);
}

async function firing(run: Run, rule: string, node: string): Promise<boolean> {
  const res = await fetch(`${run.d.app.url}/api/v1/alerts`);
  const { alerts } = (await res.json()) as { alerts: Array<{ rule: string; key: string; labels: Record<string, string> }> };
  return alerts.some((a) => a.rule === rule && (a.labels['node'] === node || a.key.startsWith(node)) && a.labels['alertname'] !== 'rule-failing');
}

/** No condition of node-health's model is on its way or firing on the node: its notifications all belong to this step. */
function nodeQuiet(m: Model, node: string): boolean {
  const n = m.nodes.find((x) => x.nodeId === node);
  return watched(m, node) && n !== undefined && !n.api.failing && Object.keys(n.api.since).length === 0;
}

/**
 * The health API switched off (--api-health-enabled=false: 404, disk gauges 0), a while, then
 * on. Nothing pages: no disk alert (the guard gives no verdict on an unset gauge), node-health
 * says it at info only. With `disk: low`, the disk alert that fired before stays firing through
 * it, never resolved as "freed".
 */
export class HealthApiOff implements Cmd {
  constructor(
    readonly node: string,
    readonly disk: 'ok' | 'low',
  ) {}
  check = (m: Model) => nodeQuiet(m, this.node);
  async run(model: Model, run: Run) {
    const step = this.toString();
    const d = run.d;
    if (this.disk === 'low') {
      d.world.nodes.set({ nodeId: this.node, diskAvailablePercent: 15 });
      await advance(model, run, SHARE_MS, `${step} (disk at 15%)`, true);
      await advance(model, run, 6 * MINUTE, `${step} (disk at 15%, +6m)`, true);
      if (!(await firing(run, 'node-disk-low', this.node))) throw new Violation(`${step}: 15% free for 6 minutes and node-disk-low (below 20, for 5m) does not fire`);
    }
    const from = d.notifications.length;
    d.world.nodes.set({ nodeId: this.node, healthApi: false });
    try {
      // Not clean: the health checks the model holds go unread.
      await poll(run, model, `${step} (off)`, false);
      for (const ms of [MINUTE, 6 * MINUTE]) await advance(model, run, ms, `${step} (off, +${ms / MINUTE}m)`, false);
      const said = since(run, from, this.node);
      const disk = said.filter((a) => a.rule.startsWith('node-disk-'));
      if (disk.length > 0) throw new Violation(`${step}: the health API is off (disk gauges unset) and a disk rule said: ${notificationsOf(disk).join(' | ')}`);
      const paged = said.filter((a) => a.rule === 'node' && a.status === 'firing' && a.severity !== 'info');
      if (paged.length > 0) throw new Violation(`${step}: node-health paged for a switched-off health API: ${notificationsOf(paged).join(' | ')}`);
      const off = said.filter((a) => a.rule === 'node' && a.status === 'firing' && /health API disabled/.test(a.summary));
      if (off.length !== 1) throw new Violation(`${step}: node-health said "health API disabled" ${off.length} times (once, at info): ${notificationsOf(said).join(' | ')}`);
      if (this.disk === 'low' && !(await firing(run, 'node-disk-low', this.node))) throw new Violation(`${step}: the disk alert that fired no longer fires while the health API is off (an unset gauge read as freed space)`);
    } finally {
      d.world.nodes.set({ nodeId: this.node, healthApi: true, diskAvailablePercent: DEFAULT_DISK });
    }
    await poll(run, model, `${step} (on again)`, true);
    const freed = since(run, from, this.node).filter((a) => a.rule.startsWith('node-disk-') && a.status !== 'resolved');
    if (freed.length > 0) throw new Violation(`${step}: a disk rule notified more than the resolution of the disk freed: ${notificationsOf(freed).join(' | ')}`);
  }
  toString = () => `node ${short(this.node)}'s health API off${this.disk === 'low' ? ' with its disk alert firing' : ''}`;
}

/**
 * The C-Chain switches to SAE (Coreth's bad-block counter frozen), then the node restarts
 * (the counter gone). node-bad-blocks says once that it no longer applies and never that it
 * matches no series; the SAE rules stay quiet on normal figures.
 */
export class SaeSwitch implements Cmd {
  constructor(readonly node: string) {}
  check = (m: Model) => watched(m, this.node) && !switched.get(m)?.has(this.node);
  async run(model: Model, run: Run) {
    const step = this.toString();
    const d = run.d;
    let set = switched.get(model);
    if (!set) switched.set(model, (set = new Set()));
    set.add(this.node);
    const from = d.notifications.length;
    d.world.nodes.set({ nodeId: this.node, cChain: 'switched' });
    await advance(model, run, SHARE_MS, `${step} (switched)`, true);
    await advance(model, run, MINUTE, `${step} (switched, +1m)`, true);
    d.world.nodes.set({ nodeId: this.node, cChain: 'restarted' });
    for (let i = 1; i <= 4; i++) await advance(model, run, 2 * MINUTE, `${step} (restarted, +${2 * i}m)`, true);
    const said = since(run, from, this.node);
    const bad = said.filter((a) => a.rule === 'node-bad-blocks');
    const absent = bad.filter((a) => a.labels['series'] === 'absent' || /matches no series/.test(a.summary));
    if (absent.length > 0) throw new Violation(`${step}: node-bad-blocks called Coreth's counter missing after the switch to SAE: ${notificationsOf(absent).join(' | ')}`);
    const retired = bad.filter((a) => a.status === 'event' && /no longer applies/.test(a.summary));
    const other = bad.filter((a) => !retired.includes(a));
    if (retired.length !== 1 || other.length > 0) throw new Violation(`${step}: node-bad-blocks said ${retired.length} time(s) that it no longer applies (once) and ${other.length} thing(s) more: ${notificationsOf(bad).join(' | ')}`);
    const sae = said.filter((a) => a.rule.startsWith('node-sae-'));
    if (sae.length > 0) throw new Violation(`${step}: an SAE rule spoke on a healthy executor: ${notificationsOf(sae).join(' | ')}`);
  }
  toString = () => `node ${short(this.node)}'s C-Chain switches to SAE, then the node restarts`;
}

/** The L1's plugin refused at the handshake (another RPCChainVM protocol), then restored: one critical naming the chain, resolved. */
export class PluginRefused implements Cmd {
  constructor(readonly protocol: number) {}
  check = (m: Model) => watched(m, L1_NODE);
  async run(model: Model, run: Run) {
    const step = this.toString();
    const d = run.d;
    const from = d.notifications.length;
    const l1 = (vmVersion: string, protocol: number | null) => ({ [L1_CHAIN]: { subnetId: L1_SUBNET, vmId: L1_VM, vmVersion, protocol } });
    d.world.nodes.set({ nodeId: L1_NODE, l1Chains: l1('v1.14.2', this.protocol) });
    try {
      // Not clean: node-health rightly says the chain's failing check, which the model does not hold.
      await advance(model, run, SHARE_MS, `${step} (refused)`, false);
      await advance(model, run, 3 * MINUTE, `${step} (refused, +3m)`, false);
    } finally {
      d.world.nodes.set({ nodeId: L1_NODE, l1Chains: l1(L1_PLUGIN, null) });
    }
    await poll(run, model, `${step} (restored)`, true);
    await advance(model, run, MINUTE, `${step} (restored, +1m)`, true);
    const said = since(run, from, L1_NODE).filter((a) => a.rule === 'node-upgrade' && a.labels['check'] === 'not-loaded');
    const fired = said.filter((a) => a.status === 'firing');
    const resolved = said.filter((a) => a.status === 'resolved');
    const all = notificationsOf(said).join(' | ');
    if (fired.length !== 1 || resolved.length !== 1) throw new Violation(`${step}: ${fired.length} not-loaded alert(s) and ${resolved.length} resolution(s), not one of each: ${all}`);
    const [alert] = fired as [AlertMessage];
    if (alert.severity !== 'critical' || !alert.summary.includes(L1_CHAIN) || alert.labels['chain'] !== L1_CHAIN) throw new Violation(`${step}: the not-loaded alert is not one critical naming chain ${L1_CHAIN}: ${all}`);
    if (await firing(run, 'node-l1-health', L1_NODE)) throw new Violation(`${step}: node-l1-health still fires after the plugin was restored`);
  }
  toString = () => `L1 plugin of protocol ${this.protocol} refused on ${short(L1_NODE)}, then restored`;
}

/** A chain polling under minRate (with failures among its few polls) for longer than the window and `for`: never paged. */
export class IdleChain implements Cmd {
  constructor(
    readonly node: string,
    readonly chain: 'X' | 'P',
  ) {}
  check = (m: Model) => watched(m, this.node);
  async run(model: Model, run: Run) {
    const step = this.toString();
    const d = run.d;
    const ok = `avalanche_snowman_polls_successful{chain="${this.chain}"}`;
    const failed = `avalanche_snowman_polls_failed{chain="${this.chain}"}`;
    // From the counters' present values: no reset, no jump into the window.
    const text = d.world.nodes.metrics(this.node) ?? '';
    const now = (series: string) => Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.split(' ')[1] ?? 0);
    let [good, bad] = [now(ok), now(failed)];
    const from = d.notifications.length;
    try {
      // 12 minutes: the 5m window covered by idle samples alone, then the rules' `for: 5m` and one more.
      for (let i = 1; i <= 12; i++) {
        // 8 good and 3 failed polls a minute: 0.18/s, 73% successful.
        [good, bad] = [good + 8, bad + 3];
        d.world.nodes.set({ nodeId: this.node, metrics: { [ok]: good, [failed]: bad } });
        await advance(model, run, MINUTE, `${step} (+${i}m)`, true);
      }
    } finally {
      d.world.nodes.set({ nodeId: this.node, metrics: { [ok]: null, [failed]: null } });
    }
    const paged = since(run, from, this.node).filter((a) => a.rule.startsWith('node-poll-success'));
    if (paged.length > 0) throw new Violation(`${step}: an idle chain was judged on its few polls: ${notificationsOf(paged).join(' | ')}`);
    await poll(run, model, `${step} (busy again)`, true);
  }
  toString = () => `node ${short(this.node)}'s ${this.chain}-Chain idle (8 good, 3 failed polls a minute)`;
}

/** The families of this file's steps (registered in commands.ts). */
export const node115Families: Record<string, fc.Arbitrary<Cmd>> = {
  'health-api': fc.tuple(fc.constantFrom(...NODES), fc.constantFrom<'ok' | 'low'>('ok', 'low')).map(([n, disk]) => new HealthApiOff(n, disk)),
  sae: fc.constantFrom(...NODES).map((n) => new SaeSwitch(n)),
  'l1-plugin': fc.constantFrom(45, 47).map((p) => new PluginRefused(p)),
  'idle-chain': fc.tuple(fc.constantFrom(...NODES), fc.constantFrom<'X' | 'P'>('X', 'P')).map(([n, c]) => new IdleChain(n, c)),
};
