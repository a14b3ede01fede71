import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { advance, type ActiveAlert } from '../../alerts/lifecycle.js';
import { periodMs } from '../../base/schedule.js';
import { loadConfig, type LoadedRule } from '../../config/load.js';
import { nodeMetrics } from './index.js';
import { readTarget } from './target.js';
import type { Spec, State } from './schema.js';

// The poll success ratio's shared cases (test/fixtures/node/poll-success-cases.yaml), fed through
// the two shipped rules of rules/node-metrics.yaml, loaded as the daemon loads them: the
// Prometheus file is tested with the same table (docs/prometheus/), so the verdicts agree.

interface Case {
  name: string;
  successful: string;
  failed: string;
  expect: string[];
  tooFew?: boolean;
}

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const T0 = 1_800_000_000_000;
const cases = (parse(readFileSync('test/fixtures/node/poll-success-cases.yaml', 'utf8')) as { cases: Case[] }).cases;

/** promtool's series notation, one sample a minute: `a+bxn` is a, a+b, … (n more), `_` a missing sample. */
export function expandSeries(text: string): Array<number | undefined> {
  const out: Array<number | undefined> = [];
  for (const term of text.trim().split(/\s+/)) {
    if (term === '_') {
      out.push(undefined);
      continue;
    }
    const m = /^(-?[\d.]+)(?:([+-][\d.]+)x(\d+))?$/.exec(term);
    if (!m) throw new Error(`"${term}" is not promtool series notation (a, a+bxn, _)`);
    const start = Number(m[1]);
    const step = Number(m[2] ?? 0);
    const n = m[3] === undefined ? 0 : Number(m[3]);
    for (let i = 0; i <= n; i++) out.push(start + step * i);
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'avawatch-poll-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The two rules as shipped, through the config loader (inventory selection, the kind's parse). */
function shippedRules(): LoadedRule[] {
  const config = join(dir, 'avawatch.yaml');
  writeFileSync(
    config,
    `state: {path: ${JSON.stringify(join(dir, 'state.db'))}}\nruleFiles: [${JSON.stringify(resolve('rules/node-metrics.yaml'))}]\nvalidators:\n  - { name: alpha, nodeId: ${NODE}, api: "http://127.0.0.1:9650" }\n`,
  );
  const loaded = loadConfig(config, {}, { skipReceiverCheck: true });
  return ['node-poll-success', 'node-poll-success-critical'].map((name) => {
    const rule = loaded.rules.find((r) => r.name === name);
    if (!rule) throw new Error(`${name} is not in rules/node-metrics.yaml`);
    return rule;
  });
}

/** Runs one case through one rule, a read a minute: what fires at the last minute, and the last states. */
function run(rule: LoadedRule, c: Case): { firing: boolean; states: ReadonlyMap<string, State> } {
  const s = rule.spec as unknown as Spec;
  const good = expandSeries(c.successful);
  const bad = expandSeries(c.failed);
  let states: ReadonlyMap<string, State> = new Map();
  let active: ActiveAlert[] = [];
  const pollMs = periodMs(rule.schedule);
  for (let minute = 0; minute < good.length; minute++) {
    const now = T0 + minute * 60_000;
    const lines = [good[minute] === undefined ? '' : `avalanche_snowman_polls_successful{chain="C"} ${good[minute]}`, bad[minute] === undefined ? '' : `avalanche_snowman_polls_failed{chain="C"} ${bad[minute]}`];
    const observation = { [NODE]: readTarget(s, `${lines.filter(Boolean).join('\n')}\n`, NODE) };
    const r = nodeMetrics.evaluate(states, observation, new Date(now), s);
    states = r.states;
    active = advance(active, r.conditions ?? [], now, { forMs: rule.for ?? 0, ...(pollMs === undefined ? {} : { pollMs }), keepFiringForMs: 0, repeatMs: 0, sendResolved: true }, r.resolvedAs).active;
  }
  return { firing: active.some((a) => a.state === 'firing'), states };
}

describe('node-poll-success / node-poll-success-critical, as shipped, on the shared cases', () => {
  const rules = shippedRules();

  it('the cases read at minute 20', () => {
    for (const c of cases) expect(expandSeries(c.successful), c.name).toHaveLength(21);
  });

  for (const c of cases) {
    it(c.name, () => {
      const firing = rules.filter((rule) => run(rule, c).firing).map((rule) => rule.severity);
      expect(firing).toEqual(c.expect);
      const [warning] = rules;
      const { states } = run(warning as LoadedRule, c);
      const series = [...states.values()].find((st) => !st.count);
      if (c.tooFew) {
        expect(series?.unjudged).toMatch(/^too few to judge: /);
        expect(series?.value).toBeUndefined();
        // The value gauge says NaN: read, nothing to judge.
        const gauge = nodeMetrics.samples(warning?.spec as unknown as Spec, states, new Date()).find((g) => g.metric === 'avawatch_node_metric_value');
        expect(gauge?.value).toBeNaN();
      } else {
        expect(series?.unjudged).toBeUndefined();
        expect(series?.value).toBeTypeOf('number');
      }
    });
  }
});
