import { afterEach, describe, expect, it } from 'vitest';
import { buildPipeline, type Pipeline } from '../alerts/pipeline/index.js';
import { systemClock } from '../base/clock.js';
import { shardOf } from '../base/shard.js';
import { loadConfig, type LoadedConfig, type LoadedRule } from '../config/load.js';
import { partName } from '../engine/parts.js';
import type { ActiveRow } from '../store/index.js';
import { NODE_A, NODE_B } from '../../test/helpers/engine-world.js';
import { writeProject, type TempProject } from '../../test/helpers/harness.js';
import { nodesApart } from '../../test/helpers/node-ids.js';
import { sharedSqlite } from '../../test/helpers/shared-sqlite.js';
import { relocateOnReload } from './relocate.js';
import { createLogger } from '../base/log.js';

// A reload that stops watching a validator of a rule spread by entity (shared state): its
// firing alert, kept in the part of its shard, ends saying so, as a whole rule's does.

const projects: TempProject[] = [];
afterEach(() => {
  for (const p of projects.splice(0)) p.cleanup();
});

function config(nodeIds: string[]): LoadedConfig {
  const p = writeProject({ dataUrl: 'http://127.0.0.1:1', webhookUrl: 'http://127.0.0.1:1/hook', nodeIds, rules: { 'r.yaml': `rules:\n  - {name: ends, kind: validation-end, every: 1m, severity: warning, network: mainnet, nodeIds: [${nodeIds.join(', ')}], warnBefore: [3d]}\n` } });
  projects.push(p);
  return loadConfig(p.configFile, {});
}


/** A firing alert of `rule` as the engine stores it (its condition enriched). */
const firing = (pipeline: Pipeline, rule: LoadedRule, node: string): ActiveRow => ({
  key: node,
  tier: '3d',
  state: 'firing',
  startedAt: 1,
  notifiedAt: 1,
  clearedAt: null,
  mutedAt: null,
  mutedReceivers: [],
  notifiedReceivers: { 'ops-slack': 1 },
  condition: pipeline.enrich(rule, { key: node, subject: node, summary: `${node} validation ends in 2 days`, labels: { node }, details: {} }),
});

describe('relocate on reload: a rule spread by entity', () => {
  it("a validator removed: its firing alert in its part ends, told as no longer watched; another's stays in its own part", async () => {
    const store = sharedSqlite();
    // Past one page of the bulk list: spread by entity.
    const more = nodesApart(100, [NODE_A, NODE_B]);
    const [prev, next] = [config([NODE_A, NODE_B, ...more]), config([NODE_B, ...more])];
    const enabled = new Set(['ops-slack']);
    const pipeline = (c: LoadedConfig) => buildPipeline(c.config, { enabled, store, clock: systemClock, redact: (t) => t });
    const [partA, partB] = [partName('ends', shardOf(NODE_A)), partName('ends', shardOf(NODE_B))];
    const stored = (node: string) => firing(pipeline(prev), prev.rules[0]!, node);
    await store.commitParts([{ rule: partA, states: {}, active: [stored(NODE_A)] }, { rule: partB, states: {}, active: [stored(NODE_B)] }], [], 1);
    const queued = await relocateOnReload({ store, prev, next, rules: ['ends'], before: pipeline(prev), after: pipeline(next), enabled, now: 2, wall: Date.UTC(2026, 0, 1), holdsShard: () => true, log: createLogger('fatal', false).log });
    expect(queued).toBe(1);
    const left = await store.loadActiveOf([partA, partB]);
    expect(left.get(partA)).toEqual([]);
    expect(left.get(partB)?.map((a) => a.key)).toEqual([NODE_B]);
    expect((await store.outbox('pending')).map((r) => r.summary)).toEqual([expect.stringContaining(`${NODE_A} is no longer watched`)]);
    expect(await store.ruleNames()).not.toContain('ends');
  });
});
