import type { LoadedRule } from '../config/load.js';
import type { Logger } from '../base/log.js';
import { FAILING_PREFIX } from '../engine/failing.js';
import { ofPart, partShard, spreadOf } from '../engine/parts.js';
import type { StateStore } from '../store/index.js';

/**
 * The store rules these rules keep in the layout they no longer have: a rule spread by entity
 * now (its parts `name#SSS`) with rows under its bare name, or a whole one with parts. A rule
 * changes layout when its spec crosses one page of the bulk list (engine/parts.ts,
 * worthSpreading) or when a version that spreads starts on a database of one that did not.
 */
export function otherLayout(store: Pick<StateStore, 'shards'>, rules: readonly LoadedRule[], storeRules: readonly string[]): string[] {
  const byName = new Map(rules.map((r) => [r.name, r]));
  return storeRules.filter((storeRule) => {
    const own = storeRule.startsWith(FAILING_PREFIX) ? storeRule.slice(FAILING_PREFIX.length) : storeRule;
    const rule = byName.get(ofPart(own));
    return rule !== undefined && (spreadOf(store, rule) !== undefined) !== (partShard(own) !== undefined);
  });
}

/**
 * Forgets what `rules` keep in their other layout (at start, and at a reload after its alerts
 * were told): the rule starts afresh in its new one, its entities from a baseline. Exactly those
 * store rules: during a rolling reload another daemon may already run the new layout, and its
 * parts are live. Without it, what the old layout kept would stay firing on /api/v1/alerts for ever.
 */
export async function pruneOtherLayout(store: StateStore, rules: readonly LoadedRule[], log: Logger): Promise<void> {
  const stale = otherLayout(store, rules, await store.ruleNames());
  if (stale.length === 0) return;
  await store.forgetExactly(stale);
  log.info({ rules: stale }, 'forgot the state a rule kept as it was laid out before (spread by entity, or whole)');
}
