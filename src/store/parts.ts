import type { CommitPart } from './types.js';

// The parts of a rule spread by entity (docs/design/entity-spread.md): its rows live under
// store rules `name#SSS` and `!rule-failing:name#SSS` (SSS: the shard, 3 digits). A rule name
// has neither `#` nor `!` (base/fields.ts), so the suffix is never part of a name.

/** engine/failing.ts's prefix (the store is a layer below the engine). */
const FAILING = '!rule-failing:';

/**
 * The store rules whose parts belong to these rules: each rule's own and its rule-failing's.
 * Names starting with `!` (a cause's, an incident's key) are matched as they are, never as parts.
 */
export function partBases(rules: readonly string[]): string[] {
  return rules.filter((r) => !r.startsWith('!')).flatMap((r) => [r, FAILING + r]);
}

/** A store rule twice in one commit is a caller's bug: its second write would check the revision the first moved. */
export function checkParts(parts: readonly CommitPart[]): void {
  const seen = new Set<string>();
  for (const { rule } of parts) {
    if (seen.has(rule)) throw new Error(`store rule "${rule}" twice in one commit`);
    seen.add(rule);
  }
}
