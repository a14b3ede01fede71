import { z } from 'zod';
import type { NodeApi } from '../api/node-api.js';

// info.upgrades (api/info/service.go, upgrade/upgrade.go): the node's build's schedule. Read by
// node-health (an upgrade the network activated that the build misses) and node-upgrade (the
// countdown to the next). test/contract/node.test.ts holds the schema to the source.

/** What upgradesReply keeps for a `<name>Time` whose value is no time: named, but no reading. */
export const UNREADABLE = -1;

/**
 * info.upgrades: upgrade.Config, flat (upgrade/upgrade.go): each `<name>Time` an RFC 3339 time,
 * 9999-12-01 for one the build does not schedule. Read by name, so an upgrade added after this
 * was written is read too; one whose time does not parse is UNREADABLE (an odd answer, never
 * read as "not scheduled": that is a key the build does not have at all).
 */
export const upgradesReply = z.record(z.string(), z.unknown()).transform((r) => {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(r)) {
    const name = /^([a-z][A-Za-z0-9]{0,40})Time$/.exec(key)?.[1];
    if (name === undefined) continue;
    const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    out[name] = Number.isFinite(ms) ? Math.floor(ms / 1000) : UNREADABLE;
  }
  return out;
});

/** Upgrade name (durango, helicon, …) → its activation in the node's build, unix seconds. */
export async function nodeUpgrades(api: NodeApi, base: string, signal: AbortSignal): Promise<Record<string, number>> {
  return api.rpc(base, '/ext/info', 'info.upgrades', {}, upgradesReply, signal);
}
