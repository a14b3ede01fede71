import type { CommitPart } from './types.js';

// The parts of a rule spread by entity (docs/design/entity-spread.md): its rows live under
// store rules `name#SSS` and `!rule-failing:name#SSS` (SSS: the shard, 3 digits). A rule name
// has neither `#` nor `!` (base/fields.ts), so the suffix is never part of a name.

/** A store rule twice in one commit is a caller's bug: its second write would check the revision the first moved. */
export function checkParts(parts: readonly CommitPart[]): void {
  const seen = new Set<string>();
  for (const { rule } of parts) {
    if (seen.has(rule)) throw new Error(`store rule "${rule}" twice in one commit`);
    seen.add(rule);
  }
}
