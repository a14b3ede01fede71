import { describe, expect, it } from 'vitest';
import { createLogger } from '../base/log.js';
import { NODE_A, NODE_B, validatorRule } from '../../test/helpers/engine-world.js';
import { nodesApart } from '../../test/helpers/node-ids.js';
import { sharedSqlite } from '../../test/helpers/shared-sqlite.js';
import { SqliteStore, type StateStore } from '../store/index.js';
import { otherLayout, pruneOtherLayout } from './layout.js';

// A rule that crosses one page of the bulk list changes layout on a shared store: past it,
// spread by entity (parts `name#SSS`); within it, whole (its name). What it kept the other way
// is forgotten, or it would stay firing on /api/v1/alerts for ever.

const big = validatorRule({ name: 'big' }, [NODE_A, ...nodesApart(100, [NODE_A])]);
const small = validatorRule({ name: 'small' }, [NODE_A, NODE_B]);

describe('a rule laid out anew (spread by entity, or whole)', () => {
  it("forgets what it kept in the layout it no longer has, its rule-failing alerts' too, and keeps the rest", async () => {
    const store = sharedSqlite();
    for (const rule of ['big', 'big#017', '!rule-failing:big', 'small', 'small#005', '!rule-failing:small#005', 'other']) {
      await store.commitParts([{ rule, states: { [NODE_A]: 1 } }], [], 1);
    }
    expect(otherLayout(store, [big, small], await store.ruleNames()).sort()).toEqual(['!rule-failing:big', '!rule-failing:small#005', 'big', 'small#005']);

    await pruneOtherLayout(store, [big, small], createLogger('fatal', false).log);
    // Exactly those: the live parts of the rule now spread stay (another daemon may run them already).
    expect((await store.ruleNames()).sort()).toEqual(['big#017', 'other', 'small']);
  });

  it('on one machine (SQLite) every rule is whole: nothing to forget', async () => {
    const store = SqliteStore.open(':memory:');
    await store.commitParts([{ rule: 'big', states: { [NODE_A]: 1 } }], [], 1);
    expect(otherLayout(store as StateStore, [big, small], await store.ruleNames())).toEqual([]);
  });
});
