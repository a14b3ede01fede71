import { roughSpan } from '../../base/duration.js';
import { isoSeconds } from '../format.js';
import { firstRelease, nextUpgrade, UNSCHEDULED_S, upgradeName, type Upgrade } from '../network.js';
import { UNREADABLE } from '../node-upgrades.js';
import { older, parseVersion, versionText } from '../semver.js';
import type { Condition, Resolution } from '../types.js';
import { protocolOf, type Table } from './compatibility.js';
import type { Spec, State } from './schema.js';

// What holds for one node before (and after) the network's next activation. Keys:
// `NodeID:activation:<upgrade>`, `NodeID:plugin:<vm>`, `NodeID:not-loaded:<chain>`.

export interface Next {
  upgrade: Upgrade;
  /** Its activation on the network, unix seconds (built in, or the config's override). */
  at: number;
  /** The first AvalancheGo release that schedules it, and the protocol it speaks (unknown: undefined). */
  release: string;
  protocol: number | undefined;
}

/** The network's next activation and what it needs, or undefined when none is ahead. */
export function nextActivation(s: Spec, nowS: number, tables: readonly Table[]): Next | undefined {
  const n = nextUpgrade(s.network, nowS, s.upgrades);
  if (!n) return undefined;
  const release = firstRelease(n.upgrade);
  return { ...n, release, protocol: protocolOf(release, tables) };
}

/**
 * Whether the node's build schedules the activation at the network's time: its info.upgrades
 * when read (a time that does not parse: unknown), else its version against the first release
 * that schedules it; undefined when neither tells.
 */
export function knows(st: State, next: Next): boolean | undefined {
  if (st.upgrades !== undefined && Object.keys(st.upgrades).length > 0) {
    const t = st.upgrades[next.upgrade];
    if (t === UNREADABLE) return undefined;
    return t === next.at;
  }
  const v = parseVersion(st.version);
  const needed = parseVersion(next.release);
  if (!v || !needed) return undefined;
  return !older(v, needed);
}

/** What the node's build says of the activation, in words. */
function scheduleText(st: State, next: Next): string {
  const t = st.upgrades?.[next.upgrade];
  const v = parseVersion(st.version);
  const build = v ? `AvalancheGo ${versionText(v)}` : 'its build';
  if (t === undefined) return st.upgrades === undefined ? `${build} is older than ${next.release}` : `${build} does not know it`;
  return t >= UNSCHEDULED_S ? `${build} schedules it not at all` : `${build} schedules it at ${isoSeconds(t)}`;
}

export function checks(node: string, st: State, s: Spec, nowS: number, next: Next | undefined, tables: readonly Table[]): Condition[] {
  const out: Condition[] = [];
  const make = (key: string, c: Omit<Condition, 'key' | 'subject' | 'labels'> & { labels: Record<string, string> }): Condition => ({
    ...c,
    key: `${node}:${key}`,
    subject: node,
    labels: { node, network: s.network, ...c.labels },
  });
  const speaks = st.protocol === undefined ? '' : `; this node speaks ${st.protocol}`;

  if (next) {
    const left = next.at - nowS;
    const known = knows(st, next);
    const tier = left <= s.criticalBefore / 1000 ? 'critical' : left <= s.warnBefore / 1000 ? 'warning' : undefined;
    if (known === false && tier) {
      const name = upgradeName(next.upgrade);
      out.push(
        make(`activation:${next.upgrade}`, {
          summary: `${node}: ${name} activates on ${s.network} at ${isoSeconds(next.at)} (in ${roughSpan(left)}), and ${scheduleText(st, next)}: upgrade to AvalancheGo ${next.release} or later before then`,
          resolvedSummary: `${node}: its build schedules ${name} at the network's time now`,
          severity: tier,
          tier,
          labels: { check: 'activation', upgrade: next.upgrade },
          details: {
            Upgrade: name,
            Activation: isoSeconds(next.at),
            'Needed release': `AvalancheGo ${next.release}${s.network === 'mainnet' ? '' : ` (${next.release}-fuji on Fuji)`}`,
            ...(st.version !== undefined ? { Version: st.version } : {}),
          },
        }),
      );
    }
    // Each plugin, against the protocol of the release the activation needs (a node that
    // speaks it already loaded only plugins that speak it too).
    const ahead = st.protocol === undefined || st.protocol !== next.protocol;
    for (const [vm, version] of ahead ? Object.entries(st.vms ?? {}) : []) {
      const p = protocolOf(version, tables);
      if (p === undefined || next.protocol === undefined || p === next.protocol) continue;
      const l1 = s.l1s.find((l) => l.vm === vm);
      const who = l1 ? `L1 ${l1.name ?? l1.chain}'s plugin ${vm} ${version}` : `Plugin ${vm} ${version}`;
      out.push(
        make(`plugin:${vm}`, {
          summary: `${node}: ${who} speaks RPCChainVM protocol ${p}; AvalancheGo ${next.release}, needed by ${upgradeName(next.upgrade)}, speaks ${next.protocol}: update the plugin first (a plugin of another protocol is not loaded once the node runs ${next.release})`,
          resolvedSummary: `${node}: plugin ${vm} no longer lags the protocol ${upgradeName(next.upgrade)} needs`,
          severity: 'warning',
          labels: { check: 'plugin', vm, ...(l1 ? { chain: l1.chain } : {}) },
          details: { VM: vm, 'Plugin version': version, 'Plugin protocol': String(p), 'Needed release': `AvalancheGo ${next.release}`, 'Its protocol': String(next.protocol), ...(st.protocol !== undefined ? { 'Node protocol': String(st.protocol) } : {}) },
        }),
      );
    }
  }

  // After a restart: a declared chain whose VM is not loaded and whose check fails.
  if (st.vms !== undefined && st.chainsFailing !== undefined) {
    for (const l1 of s.l1s) {
      const error = st.chainsFailing[l1.chain];
      if (error === undefined || st.vms[l1.vm] !== undefined) continue;
      const was = st.lastLoaded?.[l1.vm];
      const plugin = `${l1.vm}${was ? ` (${was} when last loaded)` : ''}`;
      out.push(
        make(`not-loaded:${l1.chain}`, {
          summary: `${node}: L1 ${l1.name ?? l1.chain} (chain ${l1.chain}) is not running on this node: its plugin ${plugin} was not loaded (a plugin of another RPCChainVM protocol is the usual cause${speaks})`,
          resolvedSummary: `${node}: L1 ${l1.name ?? l1.chain}'s plugin ${l1.vm} is loaded again`,
          severity: 'critical',
          labels: { check: 'not-loaded', chain: l1.chain, vm: l1.vm },
          details: { Chain: l1.chain, VM: l1.vm, ...(was ? { 'Last loaded': was } : {}), ...(st.protocol !== undefined ? { 'Node protocol': String(st.protocol) } : {}), 'Health check': error },
        }),
      );
    }
  }
  return out;
}

/** What a plugin warning that stops holding says of now: the plugin updated, gone, or the upgrade activated. */
export function presentOf(key: string, st: State | undefined, next: Next | undefined): Resolution | undefined {
  const m = /^(NodeID-[^:]+):plugin:(.+)$/.exec(key);
  if (!st || !m) return undefined;
  const [, node, vm] = m as unknown as [string, string, string];
  const version = st.vms?.[vm];
  if (st.vms !== undefined && version === undefined) return { summary: `${node}: plugin ${vm} is not loaded now` };
  const p = st.protocols?.[vm];
  if (next === undefined) return { summary: `${node}: no upgrade is ahead; plugin ${vm}${version ? ` ${version}` : ''} is loaded${p !== undefined ? ` and speaks protocol ${p}` : ''}` };
  if (version !== undefined && p !== undefined) return { summary: `${node}: plugin ${vm} ${version} speaks protocol ${p} now, as AvalancheGo ${next.release} does`, details: { 'Plugin version': version, 'Plugin protocol': String(p) } };
  return undefined;
}
