import { describe, expect, it } from 'vitest';
import { advance } from '../../alerts/lifecycle.js';
import { nodeMetrics, type Observation } from './index.js';
import { metricsUrl } from './read.js';
import type { State } from './schema.js';
import { A, at, B, exposition, fakeNode, parse, seriesKeys, step, T0 } from '../../../test/helpers/metrics-node.js';

// node-metrics on a fake node: a level crossed, series selected, rates, failing targets, series
// that go away and series churn. Its forms and keys, and what check and /metrics say: forms.spec.ts.

describe('node-metrics', () => {
  it('reads a node base at /ext/metrics; a path ending in /metrics as it is; a path prefix keeps its prefix', () => {
    expect(metricsUrl('http://127.0.0.1:9650')).toBe('http://127.0.0.1:9650/ext/metrics');
    expect(metricsUrl('http://127.0.0.1:9650/')).toBe('http://127.0.0.1:9650/ext/metrics');
    expect(metricsUrl('http://127.0.0.1:8080/node/NodeID-x')).toBe('http://127.0.0.1:8080/node/NodeID-x/ext/metrics');
    expect(metricsUrl('http://host:9650/ext/metrics')).toBe('http://host:9650/ext/metrics');
    expect(metricsUrl('http://exporter:9100/metrics')).toBe('http://exporter:9100/metrics');
  });

  it('fires above a level, naming the node, the series, its value and the level', async () => {
    const s = parse({ above: 15 });
    const node = fakeNode({ 'http://a:9650/ext/metrics': exposition(['avalanche_snowman_blks_processing{chain="C"} 20', 'avalanche_snowman_blks_processing{chain="P"} 2']) });
    const r = await step(s, node, new Map(), 0);
    expect(node.read).toEqual(['http://a:9650/ext/metrics']);
    expect(r.conditions).toHaveLength(1);
    expect(r.conditions?.[0]).toMatchObject({
      key: `${A}:avalanche_snowman_blks_processing{chain="C"}`,
      subject: `${A}:avalanche_snowman_blks_processing{chain="C"}`,
      summary: `${A}: avalanche_snowman_blks_processing{chain="C"} is 20, above 15`,
      labels: { node: A, metric: 'avalanche_snowman_blks_processing', series: '{chain="C"}', chain: 'C' },
    });
    expect(nodeMetrics.samples(s, r.states, at(0))).toEqual(
      expect.arrayContaining([{ metric: 'avawatch_node_metric_value', labels: { node_id: A, metric: 'avalanche_snowman_blks_processing', series: '{chain="C"}' }, value: 20 }]),
    );
  });

  it('fires below a level, and resolves stating the value read now', async () => {
    const s = parse({ metric: 'avalanche_resource_tracker_disk_available_percentage', below: 10 });
    let value = 4;
    const node = fakeNode({ 'http://a:9650/ext/metrics': () => exposition([`avalanche_resource_tracker_disk_available_percentage ${value}`]) });
    const low = await step(s, node, new Map(), 0);
    expect(low.conditions?.[0]?.summary).toBe(`${A}: avalanche_resource_tracker_disk_available_percentage is 4, below 10`);
    const fired = advance([], low.conditions ?? [], at(0).getTime());
    value = 42.5;
    const back = await step(s, node, low.states, 60);
    expect(back.conditions).toEqual([]);
    const [resolved] = advance(fired.active, back.conditions ?? [], at(60).getTime(), undefined, back.resolvedAs).notifications;
    expect(resolved?.status).toBe('resolved');
    expect(resolved?.summary).toBe(`${A}: avalanche_resource_tracker_disk_available_percentage is back at 42.5 (not below 10)`);
  });

  it('selects by label: exact text, an anchored ~regex, and "" for a label that is absent', async () => {
    const text = exposition([
      'avalanche_health_checks_failing{check="health",tag="all"} 3',
      'avalanche_health_checks_failing{check="health",tag="application"} 1',
      'avalanche_health_checks_failing{check="liveness",tag="all"} 5',
      'avalanche_health_checks_failing{check="readiness",tag="allx"} 9',
      'avalanche_health_checks_failing_total{check="health",tag="all"} 99',
    ]);
    const node = fakeNode({ 'http://a:9650/ext/metrics': text });
    const keysOf = async (match: Record<string, string>) =>
      (await step(parse({ metric: 'avalanche_health_checks_failing', match, above: 0 }), node, new Map(), 0)).conditions?.map((c) => c.labels['series']).sort();
    expect(await keysOf({ check: 'health', tag: 'all' })).toEqual(['{check="health",tag="all"}']);
    expect(await keysOf({ tag: '~all' })).toEqual(['{check="health",tag="all"}', '{check="liveness",tag="all"}']);
    expect(await keysOf({ check: '~health|readiness' })).toEqual(['{check="health",tag="all"}', '{check="health",tag="application"}', '{check="readiness",tag="allx"}']);
    expect(await keysOf({ chain: '', check: 'liveness' })).toEqual(['{check="liveness",tag="all"}']);
    expect(await keysOf({ chain: 'C' })).toEqual([]);
  });

  it('rate: no verdict until the window is covered, then the per-second rate; a counter reset counts as Prometheus counts it', async () => {
    const s = parse({ metric: 'avalanche_snowman_polls_failed', match: { chain: 'C' }, rate: '3m', above: 0.5 });
    let value = 100;
    const node = fakeNode({ 'http://a:9650/ext/metrics': () => exposition([`avalanche_snowman_polls_failed{chain="C"} ${value}`]) });
    let states: ReadonlyMap<string, State> = new Map();
    const values: Array<number | undefined> = [];
    // 100, 160, then the node restarts (10), 70: an increase of 60 + 10 + 60 = 130 over 180s.
    for (const [t, v] of [
      [0, 100],
      [60, 160],
      [120, 10],
      [180, 70],
    ] as const) {
      value = v;
      const r = await step(s, node, states, t);
      states = r.states;
      values.push([...states.values()][0]?.value);
      if (t < 180) expect(r.conditions, `no verdict at ${t}s`).toEqual([]);
      else expect(r.conditions?.[0]?.summary).toBe(`${A}: rate of avalanche_snowman_polls_failed{chain="C"} over 3m is 0.7222/s, above 0.5/s`);
    }
    expect(values).toEqual([undefined, undefined, undefined, 130 / 180]);
    // A minute later, with no new failure: the window (60s..240s) saw 10 + 60, back under 0.5/s.
    const quiet = await step(s, node, states, 240);
    expect([...quiet.states.values()][0]?.value).toBeCloseTo(70 / 180);
    expect(quiet.conditions).toEqual([]);
  });

  it('rate: a firing alert stays while a window is not covered (a state with too few points gives no verdict)', async () => {
    const s = parse({ metric: 'c', rate: '5m', above: 1 });
    const key = `${A}:c{}`;
    const previous = new Map<string, State>([[key, { target: A, at: T0, labels: {}, value: 3, breach: true, points: [[T0, 1000]], raw: 1000 }]]);
    const observation: Observation = { [A]: { series: [{ labels: {}, value: 1010 }] } };
    const r = nodeMetrics.evaluate(previous, observation, at(60), s);
    expect(r.conditions?.map((c) => c.key)).toEqual([key]);
  });

  it('one target failing does not blind another; the failed one keeps its state and its firing alert', async () => {
    const s = parse({ urls: { [A]: 'http://a:9650', [B]: 'http://b:9650' }, above: 15 });
    const high = exposition(['avalanche_snowman_blks_processing{chain="C"} 30']);
    const both = await step(s, fakeNode({ 'http://a:9650/ext/metrics': high, 'http://b:9650/ext/metrics': high }), new Map(), 0);
    expect(both.conditions?.map((c) => c.labels['node']).sort()).toEqual([A, B].sort());

    const r = await step(s, fakeNode({ 'http://b:9650/ext/metrics': exposition(['avalanche_snowman_blks_processing{chain="C"} 40']) }), both.states, 60);
    expect(r.failed).toEqual({ [A]: 'http://a:9650/ext/metrics: connection refused' });
    expect(r.states.get(`${A}:avalanche_snowman_blks_processing{chain="C"}`)).toEqual(both.states.get(`${A}:avalanche_snowman_blks_processing{chain="C"}`));
    expect(r.conditions?.map((c) => c.summary).sort()).toEqual([`${A}: avalanche_snowman_blks_processing{chain="C"} is 30, above 15`, `${B}: avalanche_snowman_blks_processing{chain="C"} is 40, above 15`]);
  });

  it('every target failing fails the evaluation', async () => {
    await expect(step(parse({ above: 1 }), fakeNode({}), new Map(), 0)).rejects.toThrow('connection refused');
  });

  it('an exposition the parser cannot read fails its target only', async () => {
    const s = parse({ urls: { [A]: 'http://a:9650', [B]: 'http://b:9650' }, above: 15 });
    for (const bad of ['avalanche_snowman_blks_processing{chain=C} 1', 'avalanche_snowman_blks_processing{chain="C"} abc', 'avalanche_snowman_blks_processing{chain="C 1']) {
      const node = fakeNode({ 'http://a:9650/ext/metrics': exposition([bad]), 'http://b:9650/ext/metrics': exposition(['avalanche_snowman_blks_processing 1']) });
      const r = await step(s, node, new Map(), 0);
      expect(Object.keys(r.failed ?? {}), bad).toEqual([A]);
      expect(seriesKeys(r.states)).toEqual([`${B}:avalanche_snowman_blks_processing{}`]);
    }
    const r = await step(s, fakeNode({ 'http://a:9650/ext/metrics': exposition(['avalanche_snowman_blks_processing{chain="C"} abc']), 'http://b:9650/ext/metrics': '' }), new Map(), 0);
    expect(r.failed).toEqual({ [A]: 'avalanche_snowman_blks_processing: a sample value "abc" is not a number' });
  });

  it('a series the node stops exporting keeps its alert for two reads (an empty answer resolves nothing), then drops it, saying so', async () => {
    const s = parse({ above: 15 });
    let lines = ['avalanche_snowman_blks_processing{chain="C"} 30', 'avalanche_snowman_blks_processing{chain="X"} 1'];
    const node = fakeNode({ 'http://a:9650/ext/metrics': () => exposition(lines) });
    const first = await step(s, node, new Map(), 0);
    let active = advance([], first.conditions ?? [], at(0).getTime()).active;
    lines = ['avalanche_snowman_blks_processing{chain="X"} 1'];
    let states = first.states;
    const sent: string[] = [];
    for (const minute of [1, 2, 3]) {
      const r = await step(s, node, states, minute * 60);
      states = r.states;
      const next = advance(active, r.conditions ?? [], at(minute * 60).getTime(), undefined, r.resolvedAs);
      active = next.active;
      sent.push(...next.notifications.map((n) => `${minute}: ${n.status} ${n.summary}`));
    }
    expect(seriesKeys(states)).toEqual([`${A}:avalanche_snowman_blks_processing{chain="X"}`]);
    expect(sent).toEqual([`3: resolved ${A}: avalanche_snowman_blks_processing{chain="C"} is no longer exported`]);
  });

  it('a hostile exposition is bounded: too many series fail the node, long label values are clipped, a broken line is not quoted whole', async () => {
    // B answers well: A's answer fails A alone.
    const s = parse({ above: 15, urls: { [A]: 'http://a:9650', [B]: 'http://b:9650' } });
    const withB = (a: string) => fakeNode({ 'http://a:9650/ext/metrics': a, 'http://b:9650/ext/metrics': exposition(['avalanche_snowman_blks_processing 1']) });
    const many = Array.from({ length: 1_001 }, (_, i) => `avalanche_snowman_blks_processing{chain="c${i}"} 1`);
    const wide = await step(s, withB(exposition(many)), new Map(), 0);
    expect(wide.failed?.[A]).toBe('avalanche_snowman_blks_processing: 1001 series, more than the 1000 a rule reads: narrow it with match:');
    const long = await step(s, withB(exposition([`avalanche_snowman_blks_processing{chain="${'x'.repeat(100_000)}"} 30`])), new Map(), 0);
    expect(long.conditions?.[0]?.labels['chain']?.length).toBe(201);
    const broken = await step(s, withB(`avalanche_snowman_blks_processing{chain="C ${'y'.repeat(100_000)}\n`), new Map(), 0);
    expect(broken.failed?.[A]?.length).toBeLessThan(400);
  });

  it('a rule matching no series on a node says so after three reads (as absent()), and resolves when series appear', async () => {
    // A typo in a matcher, or a metric renamed by an upgrade: the node answers, nothing matches.
    const s = parse({ above: 1, match: { chain: 'Q' }, urls: { [A]: 'http://a:9650', [B]: 'http://b:9650' } });
    let lines = ['avalanche_snowman_blks_processing{chain="C"} 5'];
    const node = fakeNode({ 'http://a:9650/ext/metrics': () => exposition(lines), 'http://b:9650/ext/metrics': exposition(['avalanche_snowman_blks_processing{chain="Q"} 0']) });
    let states: ReadonlyMap<string, State> = new Map();
    let active = advance([], [], at(0).getTime()).active;
    const sent: string[] = [];
    const gauges: string[] = [];
    for (const minute of [0, 1, 2, 3, 4]) {
      if (minute === 4) lines = ['avalanche_snowman_blks_processing{chain="Q"} 0'];
      const r = await step(s, node, states, minute * 60);
      states = r.states;
      const next = advance(active, r.conditions ?? [], at(minute * 60).getTime(), undefined, r.resolvedAs);
      active = next.active;
      sent.push(...next.notifications.map((n) => `${minute}: ${n.status} ${n.summary}`));
      const series = nodeMetrics.samples(s, states, at(minute * 60)).find((g) => g.metric === 'avawatch_node_metric_series' && g.labels['node_id'] === A);
      gauges.push(`${minute}: ${series?.value}`);
    }
    expect(sent).toEqual([
      `2: firing ${A}: avalanche_snowman_blks_processing{chain="Q"} matches no series (3 reads in a row): the rule judges nothing there`,
      `4: resolved ${A}: avalanche_snowman_blks_processing{chain="Q"} matches 1 series again`,
    ]);
    expect(gauges).toEqual(['0: 0', '1: 0', '2: 0', '3: 0', '4: 1']);
  });

  it('a node that cannot be read is not "no series": its count of reads without one holds', async () => {
    const s = parse({ above: 1 });
    const empty = fakeNode({ 'http://a:9650/ext/metrics': exposition(['other_metric 5']) });
    let states: ReadonlyMap<string, State> = new Map();
    for (const t of [0, 60]) states = (await step(s, empty, states, t)).states;
    const down = nodeMetrics.evaluate(states, { [A]: { failed: 'connection refused' } } as unknown as Observation, at(120), s);
    expect(down.conditions).toEqual([]);
    const third = await step(s, empty, down.states, 180);
    expect(third.conditions?.map((c) => c.key)).toEqual([`${A}:absent(avalanche_snowman_blks_processing)`]);
    // Down while it fires: the alert holds.
    expect(nodeMetrics.evaluate(third.states, { [A]: { failed: 'connection refused' } } as unknown as Observation, at(240), s).conditions?.map((c) => c.labels['series'])).toEqual(['absent']);
  });

  it('series churn is capped per node: at most maxSeries (100 by default) judged, the rest counted and said', async () => {
    // A label that takes a new value at every read: 200 new series each time.
    const s = parse({ above: 1 });
    let read = 0;
    const node = fakeNode({ 'http://a:9650/ext/metrics': () => exposition(Array.from({ length: 200 }, (_, i) => `avalanche_snowman_blks_processing{id="${read}-${i}"} 5`)) });
    let states: ReadonlyMap<string, State> = new Map();
    let active = advance([], [], at(0).getTime()).active;
    const fired = new Set<string>();
    for (read = 0; read < 10; read++) {
      const r = await step(s, node, states, read * 60);
      states = r.states;
      active = advance(active, r.conditions ?? [], at(read * 60).getTime(), undefined, r.resolvedAs).active;
      for (const a of active) fired.add(a.key);
      expect(seriesKeys(states).length).toBeLessThanOrEqual(100);
    }
    // Ten reads of 200 new series: 2,000 would have fired; a slot frees when its series is gone
    // (three reads): 100 at reads 0, 3, 6 and 9, and the cap's own alert.
    expect(fired.size).toBe(4 * 100 + 1);
    const cap = active.find((a) => a.key === `${A}:count(avalanche_snowman_blks_processing)`);
    expect(cap?.condition.summary).toBe(`${A}: 200 series match avalanche_snowman_blks_processing, more than maxSeries (100): 100 not judged`);
    expect(nodeMetrics.samples(s, states, at(600)).filter((g) => g.metric === 'avawatch_node_metric_series_cut')).toEqual([{ metric: 'avawatch_node_metric_series_cut', labels: { node_id: A, metric: 'avalanche_snowman_blks_processing' }, value: 100 }]);
  });

  it('a tracked series keeps its place under the cap; a node back within it resolves the cap alert', async () => {
    const s = parse({ above: 1, maxSeries: 2 });
    let lines = ['avalanche_snowman_blks_processing{chain="C"} 5', 'avalanche_snowman_blks_processing{chain="P"} 5'];
    const node = fakeNode({ 'http://a:9650/ext/metrics': () => exposition(lines) });
    const first = await step(s, node, new Map(), 0);
    lines = ['avalanche_snowman_blks_processing{chain="A"} 5', ...lines];
    const second = await step(s, node, first.states, 60);
    expect(second.conditions?.map((c) => c.labels['series'])).toEqual(['{chain="C"}', '{chain="P"}', 'count']);
    lines = lines.slice(1);
    const third = await step(s, node, second.states, 120);
    expect(third.conditions?.map((c) => c.labels['series'])).toEqual(['{chain="C"}', '{chain="P"}']);
    expect(third.resolvedAs?.(`${A}:count(avalanche_snowman_blks_processing)`)?.summary).toBe(`${A}: 2 series match avalanche_snowman_blks_processing, within maxSeries (2)`);
  });

  it('maxSeries lowered by a reload: a firing series over it resolves saying it is no longer judged, not that it is gone', async () => {
    const lines = ['avalanche_snowman_blks_processing{chain="C"} 5', 'avalanche_snowman_blks_processing{chain="P"} 5'];
    const node = fakeNode({ 'http://a:9650/ext/metrics': exposition(lines) });
    const first = await step(parse({ above: 1, maxSeries: 2 }), node, new Map(), 0);
    expect(first.conditions?.map((c) => c.labels['series'])).toEqual(['{chain="C"}', '{chain="P"}']);
    const lowered = await step(parse({ above: 1, maxSeries: 1 }), node, first.states, 60);
    expect(lowered.conditions?.map((c) => c.labels['series'])).toEqual(['{chain="C"}', 'count']);
    expect(lowered.resolvedAs?.(`${A}:avalanche_snowman_blks_processing{chain="P"}`)).toEqual({
      summary: `${A}: avalanche_snowman_blks_processing{chain="P"} is no longer judged: more than maxSeries (1) series match`,
      details: { Node: A, Series: 'avalanche_snowman_blks_processing{chain="P"}' },
    });
  });
});
