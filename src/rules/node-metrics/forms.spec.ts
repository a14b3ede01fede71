import { describe, expect, it } from 'vitest';
import { advance } from '../../alerts/lifecycle.js';
import { nodeMetrics } from './index.js';
import { seriesMatching, seriesOf } from './read.js';
import { infixOf, spec as specSchema, type State } from './schema.js';
import { A, at, B, exposition, fakeNode, parse, seriesKeys, step, T0 } from '../../../test/helpers/metrics-node.js';

// node-metrics's forms on a fake node: a fold (aggregate), a ratio, a difference, guards (when,
// until, optional), a ~pattern metric; its keys, its cost, and what check and /metrics say.
// A level, selection, rates and failing targets: index.spec.ts.

describe('node-metrics: its forms (a fold, a ratio, a difference, guards, a ~pattern) and keys', () => {
  it('aggregate: a read with no series of a value holds the fold as it was (no verdict), and its alert', async () => {
    const s = parse({ above: 15, aggregate: 'max' });
    let lines = ['avalanche_snowman_blks_processing{chain="C"} 20'];
    const node = fakeNode({ 'http://a:9650/ext/metrics': () => exposition(lines) });
    const first = await step(s, node, new Map(), 0);
    const key = `${A}:max(avalanche_snowman_blks_processing)`;
    expect(first.conditions?.map((c) => c.key)).toEqual([key]);
    lines = ['avalanche_network_peers 5'];
    const empty = await step(s, node, first.states, 60);
    expect(empty.states.get(key)).toEqual(first.states.get(key));
    expect(empty.conditions?.filter((c) => c.key === key).map((c) => c.summary)).toEqual([`${A}: max of avalanche_snowman_blks_processing is 20, above 15`]);
  });

  it('aggregate: min and max fold every series, negative ones too', async () => {
    const node = fakeNode({ 'http://a:9650/ext/metrics': exposition(['avalanche_snowman_blks_processing{chain="C"} -3', 'avalanche_snowman_blks_processing{chain="P"} -7', 'avalanche_snowman_blks_processing{chain="X"} -5']) });
    const value = async (raw: Record<string, unknown>) => (await step(parse(raw), node, new Map(), 0)).conditions?.map((c) => c.summary);
    expect(await value({ aggregate: 'min', below: 0 })).toEqual([`${A}: min of avalanche_snowman_blks_processing is -7, below 0`]);
    expect(await value({ aggregate: 'max', below: 0 })).toEqual([`${A}: max of avalanche_snowman_blks_processing is -3, below 0`]);
    expect(await value({ aggregate: 'sum', below: 0 })).toEqual([`${A}: sum of avalanche_snowman_blks_processing is -15, below 0`]);
  });

  it('aggregate: one value per target across its series', async () => {
    const s = parse({ metric: 'avalanche_benchlist_benched_num', aggregate: 'sum', above: 1 });
    const node = fakeNode({ 'http://a:9650/ext/metrics': exposition(['avalanche_benchlist_benched_num{chain="C"} 1', 'avalanche_benchlist_benched_num{chain="P"} 1', 'avalanche_benchlist_benched_num{chain="X"} 0']) });
    const r = await step(s, node, new Map(), 0);
    expect(r.conditions?.map((c) => [c.key, c.summary, c.labels['series']])).toEqual([[`${A}:sum(avalanche_benchlist_benched_num)`, `${A}: sum of avalanche_benchlist_benched_num is 2, above 1`, 'sum']]);
    expect(nodeMetrics.samples(s, r.states, at(0)).filter((g) => g.metric === 'avawatch_node_metric_value')).toEqual([{ metric: 'avawatch_node_metric_value', labels: { node_id: A, metric: 'avalanche_benchlist_benched_num', series: 'sum' }, value: 2 }]);
  });

  it('a huge exposition keeps only the series of the metric (its time: npm run bench -- exposition)', () => {
    const lines: string[] = [];
    for (let i = 0; i < 60_000; i++) lines.push(`avalanche_handler_messages{chain="C",op="op_${i}"} ${i}`, `avalanche_snowman_blks_processing_time{chain="c${i}"} 1`);
    lines.push('avalanche_snowman_blks_processing{chain="C"} 7');
    const text = exposition(lines);
    expect(text.length).toBeGreaterThan(5_000_000);
    expect(seriesOf(text, 'avalanche_snowman_blks_processing')).toEqual([{ labels: { chain: 'C' }, value: 7 }]);
  });

  it('reads escapes, +Inf and NaN as Prometheus does; a NaN keeps what the series had', async () => {
    expect(seriesOf('m{path="C:\\\\DIR",q="say \\"hi\\""} +Inf\nm{a="1"} NaN\n', 'm')).toEqual([
      { labels: { path: 'C:\\DIR', q: 'say "hi"' }, value: Infinity },
      { labels: { a: '1' }, value: NaN },
    ]);
    const s = parse({ metric: 'm', above: 1 });
    const key = `${A}:m{}`;
    const r = nodeMetrics.evaluate(new Map([[key, { target: A, at: T0, labels: {}, value: 5, breach: true }]]), { [A]: { series: [{ labels: {}, value: NaN }] } }, at(60), s);
    expect(r.states.get(key)).toMatchObject({ value: 5, breach: true, at: T0 });
    expect(r.conditions?.map((c) => c.key)).toEqual([key]);
  });

  it('ratioWith: the share of one counter in both, per chain joined on the labels; under minRate too few to judge, said and not paged', async () => {
    const s = parse({ metric: 'avalanche_snowman_polls_successful', ratioWith: 'avalanche_snowman_polls_failed', rate: '2m', minRate: 0.2, below: 0.9 });
    let good = 0;
    let bad = 0;
    let idle = 0;
    const node = fakeNode({
      'http://a:9650/ext/metrics': () =>
        exposition([
          `avalanche_snowman_polls_successful{chain="C"} ${good}`,
          `avalanche_snowman_polls_failed{chain="C"} ${bad}`,
          `avalanche_snowman_polls_successful{chain="Q"} ${idle}`,
          `avalanche_snowman_polls_failed{chain="Q"} 0`,
        ]),
    });
    let states: ReadonlyMap<string, State> = new Map();
    let active = advance([], [], at(0).getTime()).active;
    const sent: string[] = [];
    // C: 600 good and 120 failed a minute (83%), then the node restarts (both reset), then all
    // good; Q: every poll fails... on 6 polls a minute (0.1/s): too few to judge.
    const reads: Array<[number, number, number]> = [
      [0, 0, 0],
      [60, 600, 120],
      [120, 1200, 240],
      [180, 600, 120],
      [240, 1200, 120],
      [300, 1800, 120],
      [360, 2400, 120],
    ];
    for (const [t, g, b] of reads) {
      [good, bad, idle] = [g, b, 0];
      const r = await step(s, node, states, t);
      states = r.states;
      const next = advance(active, r.conditions ?? [], at(t).getTime(), undefined, r.resolvedAs);
      active = next.active;
      sent.push(...next.notifications.map((n) => `${t}: ${n.status} ${n.summary}`));
    }
    expect(sent).toEqual([
      `120: firing ${A}: avalanche_snowman_polls_successful{chain="C"} / (avalanche_snowman_polls_successful + avalanche_snowman_polls_failed) over 2m is 83.33%, below 90%`,
      // The restart at 180 s counts as Prometheus counts it (600 and 120 more, not a fall): over
      // 120..240 s, 1,200 good and 120 failed.
      `240: resolved ${A}: avalanche_snowman_polls_successful{chain="C"} / (avalanche_snowman_polls_successful + avalanche_snowman_polls_failed) over 2m is back at 90.91% (not below 90%)`,
    ]);
    const q = states.get(`${A}:avalanche_snowman_polls_successful{chain="Q"}`);
    expect(q?.unjudged).toBe('too few to judge: 0/s of avalanche_snowman_polls_successful and avalanche_snowman_polls_failed together over 2m, under minRate 0.2/s');
    const gauges = nodeMetrics.samples(s, states, at(360)).filter((g) => g.metric === 'avawatch_node_metric_value');
    expect(gauges.map((g) => [g.labels['series'], g.value])).toEqual([
      ['{chain="C"}', 1],
      ['{chain="Q"}', NaN],
    ]);
  });

  it('ratioWith: a firing ratio whose chain goes idle resolves saying there are too few to judge', () => {
    const s = parse({ metric: 'ok', ratioWith: 'bad', rate: '1m', minRate: 1, below: 0.9 });
    const key = `${A}:ok{}`;
    const read = (t: number, ok: number, bad: number, prev: ReadonlyMap<string, State>) => nodeMetrics.evaluate(prev, { [A]: { series: [{ labels: {}, value: ok, other: bad }] } }, at(t), s);
    const a = read(0, 0, 0, new Map());
    const b = read(60, 0, 600, a.states);
    expect(b.conditions?.map((c) => c.key)).toEqual([key]);
    const c = read(120, 0, 630, b.states);
    expect(c.conditions).toEqual([]);
    expect(c.resolvedAs?.(key)?.summary).toBe(`${A}: ok / (ok + bad) over 1m: too few to judge: 0.5/s of ok and bad together over 1m, under minRate 1/s`);
  });

  it('a reload between per series and aggregate: what the other form fired is not held while the node cannot be read, is not judged, or stops exporting it', async () => {
    // B answers throughout: every target failing would fail the whole evaluation.
    const urls = { [A]: 'http://a:9650', [B]: 'http://b:9650' };
    const perSeries = parse({ urls, above: 15 });
    const aggregate = parse({ urls, above: 15, aggregate: 'max' });
    const guarded = (s: Record<string, unknown>) => parse({ urls, ...s, when: { metric: 'avalanche_network_peers', above: 0 } });
    const URL = 'http://a:9650/ext/metrics';
    const BURL = 'http://b:9650/ext/metrics';
    const high = exposition(['avalanche_snowman_blks_processing{chain="C"} 20', 'avalanche_snowman_blks_processing{chain="P"} 2', 'avalanche_network_peers 5']);
    const quiet = exposition(['avalanche_snowman_blks_processing{chain="C"} 1', 'avalanche_network_peers 5']);
    const fakeNodeB = (a: Record<string, string>) => fakeNode({ ...a, [BURL]: quiet });
    const summaries = (r: { conditions?: Array<{ summary: string }> | undefined }) => r.conditions?.map((c) => c.summary);
    const SERIES = `${A}: avalanche_snowman_blks_processing{chain="C"} is 20, above 15`;
    const MAX = `${A}: max of avalanche_snowman_blks_processing is 20, above 15`;
    // An aggregate rule reads its series too: back to per series, the series read last holds, never the fold.
    for (const [form, s, other, fired, otherHolds] of [
      ['per series', perSeries, aggregate, SERIES, []],
      ['aggregate', aggregate, perSeries, MAX, [SERIES]],
    ] as const) {
      const first = await step(s, fakeNodeB({ [URL]: high }), new Map(), 0);
      expect(summaries(first), form).toEqual([fired]);
      // The node cannot be read: what held holds under the same form, not under the other.
      expect(summaries(await step(s, fakeNodeB({}), first.states, 60)), form).toEqual([fired]);
      expect(summaries(await step(other, fakeNodeB({}), first.states, 60)), form).toEqual(otherHolds);
      // Its `when:` guard does not hold: the same.
      const unguarded = exposition(['avalanche_snowman_blks_processing{chain="C"} 20', 'avalanche_network_peers 0']);
      const guardedFirst = await step(guarded(s === perSeries ? { above: 15 } : { above: 15, aggregate: 'max' }), fakeNodeB({ [URL]: high }), new Map(), 0);
      expect(summaries(await step(guarded(s === perSeries ? { above: 15 } : { above: 15, aggregate: 'max' }), fakeNodeB({ [URL]: unguarded }), guardedFirst.states, 60)), form).toEqual([fired]);
      expect(summaries(await step(guarded(s === perSeries ? { above: 15, aggregate: 'max' } : { above: 15 }), fakeNodeB({ [URL]: unguarded }), guardedFirst.states, 60)), form).toEqual(otherHolds);
    }
    // A per-series alert whose series is no longer exported holds for a read, under its own form only.
    const first = await step(perSeries, fakeNodeB({ [URL]: high }), new Map(), 0);
    const without = exposition(['avalanche_snowman_blks_processing{chain="P"} 2']);
    expect(summaries(await step(perSeries, fakeNodeB({ [URL]: without }), first.states, 60))).toEqual([SERIES]);
    expect(summaries(await step(aggregate, fakeNodeB({ [URL]: without }), first.states, 60))).toEqual([]);
  });

  it('when: a target whose guard does not hold is not judged (an unset gauge never pages); what fired stays as for a failed read', async () => {
    const s = parse({ metric: 'avalanche_resource_tracker_disk_available_percentage', when: { metric: 'avalanche_resource_tracker_disk_available_space', above: 0 }, below: 10 });
    let pct = 0;
    let space = 0;
    const node = fakeNode({ 'http://a:9650/ext/metrics': () => exposition([`avalanche_resource_tracker_disk_available_percentage ${pct}`, `avalanche_resource_tracker_disk_available_space ${space}`]) });
    let states: ReadonlyMap<string, State> = new Map();
    // The health API off: both gauges 0 for an hour, no alert, not even "matches no series".
    for (let minute = 0; minute <= 60; minute += 5) {
      const r = await step(s, node, states, minute * 60);
      states = r.states;
      expect(r.conditions, `minute ${minute}`).toEqual([]);
      expect(r.failed).toEqual({});
    }
    expect(states.get(`${A}:count(avalanche_resource_tracker_disk_available_percentage)`)?.skipped).toBe('avalanche_resource_tracker_disk_available_space is 0 (not above 0): not judged');
    // The health API on: 5% free fires; switched off again, the alert holds as it was.
    [pct, space] = [5, 1e9];
    const low = await step(s, node, states, 3700);
    expect(low.conditions?.map((c) => c.summary)).toEqual([`${A}: avalanche_resource_tracker_disk_available_percentage is 5, below 10`]);
    [pct, space] = [0, 0];
    const off = await step(s, node, low.states, 3760);
    expect(off.conditions?.map((c) => c.summary)).toEqual([`${A}: avalanche_resource_tracker_disk_available_percentage is 5, below 10`]);
  });

  it('until: once the node exports the successor, the rule no longer applies there: said once, what fired resolves, no "matches no series"', async () => {
    const s = parse({ metric: 'avalanche_evm_eth_chain_block_bad_count', match: { chain: 'C' }, until: 'avalanche_evm_transition_sae_last_executed_height', rate: '1m', above: 0 });
    let lines = ['avalanche_evm_eth_chain_block_bad_count{chain="C"} 0'];
    const node = fakeNode({ 'http://a:9650/ext/metrics': () => exposition(lines) });
    let states: ReadonlyMap<string, State> = new Map();
    let active = advance([], [], at(0).getTime()).active;
    const sent: string[] = [];
    const events: string[] = [];
    const script: Array<[number, string[]]> = [
      [0, ['avalanche_evm_eth_chain_block_bad_count{chain="C"} 0']],
      [60, ['avalanche_evm_eth_chain_block_bad_count{chain="C"} 3']],
      // Helicon: the counter freezes, SAE's series appear; then a restart drops Coreth's.
      [120, ['avalanche_evm_eth_chain_block_bad_count{chain="C"} 3', 'avalanche_evm_transition_sae_last_executed_height{chain="C"} 100']],
      [180, ['avalanche_evm_transition_sae_last_executed_height{chain="C"} 160']],
      [240, ['avalanche_evm_transition_sae_last_executed_height{chain="C"} 220']],
      [300, ['avalanche_evm_transition_sae_last_executed_height{chain="C"} 280']],
      [360, ['avalanche_evm_transition_sae_last_executed_height{chain="C"} 340']],
    ];
    for (const [t, l] of script) {
      lines = l;
      const r = await step(s, node, states, t);
      states = r.states;
      events.push(...r.alerts.map((e) => `${t}: ${e.severity} ${e.summary}`));
      const next = advance(active, r.conditions ?? [], at(t).getTime(), undefined, r.resolvedAs);
      active = next.active;
      sent.push(...next.notifications.map((n) => `${t}: ${n.status} ${n.summary}`));
    }
    expect(sent).toEqual([
      `60: firing ${A}: rate of avalanche_evm_eth_chain_block_bad_count{chain="C"} over 1m is 0.05/s, above 0/s`,
      `120: resolved ${A}: rate of avalanche_evm_eth_chain_block_bad_count{chain="C"} over 1m no longer applies: the node exports avalanche_evm_transition_sae_last_executed_height`,
    ]);
    expect(events).toEqual([`120: info ${A}: avalanche_evm_eth_chain_block_bad_count{chain="C"} no longer applies: the node exports avalanche_evm_transition_sae_last_executed_height`]);
    expect(seriesKeys(states)).toEqual([]);
  });

  it('optional: a node exporting no matching series is not said (a chain it does not run)', async () => {
    const s = parse({ metric: 'avalanche_evm_transition_sae_execution_queue_blocks', optional: true, above: 20 });
    const node = fakeNode({ 'http://a:9650/ext/metrics': exposition(['avalanche_snowman_blks_processing{chain="C"} 1']) });
    let states: ReadonlyMap<string, State> = new Map();
    for (const t of [0, 60, 120, 180, 240]) {
      const r = await step(s, node, states, t);
      states = r.states;
      expect(r.conditions).toEqual([]);
    }
  });

  it('minus: the difference of two gauges of the same labels (executed not yet settled)', async () => {
    const s = parse({ metric: 'avalanche_evm_transition_sae_last_executed_height', minus: 'avalanche_evm_transition_sae_last_settled_height', above: 100 });
    const node = fakeNode({
      'http://a:9650/ext/metrics': exposition(['avalanche_evm_transition_sae_last_executed_height{chain="C"} 5300', 'avalanche_evm_transition_sae_last_settled_height{chain="C"} 5000']),
    });
    const r = await step(s, node, new Map(), 0);
    expect(r.conditions?.map((c) => c.summary)).toEqual([`${A}: avalanche_evm_transition_sae_last_executed_height{chain="C"} - avalanche_evm_transition_sae_last_settled_height is 300, above 100`]);
    // The other series missing: no verdict, said in the state.
    const alone = await step(s, fakeNode({ 'http://a:9650/ext/metrics': exposition(['avalanche_evm_transition_sae_last_executed_height{chain="C"} 5300']) }), new Map(), 0);
    expect(alone.conditions).toEqual([]);
    expect([...alone.states.values()].find((st) => !st.count)?.unjudged).toBe('avalanche_evm_transition_sae_last_settled_height has no series with these labels');
  });

  it('a ~pattern metric: any VM namespace, each series by its own name; the fixed part finds the lines', async () => {
    const s = parse({ metric: '~avalanche_.+_vm_eth_chain_block_bad_count', above: 0 });
    const vm = 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy';
    const node = fakeNode({
      'http://a:9650/ext/metrics': exposition([
        '# HELP avalanche_subnetevm_vm_eth_chain_block_bad_count x',
        'avalanche_subnetevm_vm_eth_chain_block_bad_count{chain="2X"} 0',
        `avalanche_${vm}_vm_eth_chain_block_bad_count{chain="2Y"} 4`,
        'avalanche_evm_eth_chain_block_bad_count{chain="C"} 9',
        'avalanche_x_vm_eth_chain_block_bad_count_total{chain="Z"} 9',
        'other{label="avalanche_q_vm_eth_chain_block_bad_count"} 9',
      ]),
    });
    const r = await step(s, node, new Map(), 0);
    expect(r.conditions?.map((c) => [c.key, c.labels['metric'], c.summary])).toEqual([
      [`${A}:avalanche_${vm}_vm_eth_chain_block_bad_count{chain="2Y"}`, `avalanche_${vm}_vm_eth_chain_block_bad_count`, `${A}: avalanche_${vm}_vm_eth_chain_block_bad_count{chain="2Y"} is 4, above 0`],
    ]);
    expect(seriesKeys(r.states)).toHaveLength(2);
    // Two VMs' series with the same labels are two series, not one.
    const twin = await step(s, fakeNode({ 'http://a:9650/ext/metrics': exposition(['avalanche_a_vm_eth_chain_block_bad_count{chain="X"} 1', 'avalanche_b_vm_eth_chain_block_bad_count{chain="X"} 2']) }), new Map(), 0);
    expect(twin.conditions?.map((c) => c.summary)).toEqual([`${A}: avalanche_a_vm_eth_chain_block_bad_count{chain="X"} is 1, above 0`, `${A}: avalanche_b_vm_eth_chain_block_bad_count{chain="X"} is 2, above 0`]);
    expect(infixOf('avalanche_.+_vm_eth_chain_block_bad_count')).toBe('_vm_eth_chain_block_bad_count');
    expect(infixOf('avalanche_(evm|subnetevm)_x')).toBe('avalanche_');
    expect(infixOf('a|b_long_name')).toBeUndefined();
    expect(infixOf('avalanche_s?x')).toBe('avalanche_');
  });

  it('a ~pattern finds its series among lines that hold its fixed part elsewhere (its time: npm run bench -- exposition)', () => {
    const lines: string[] = [];
    for (let i = 0; i < 1_000; i++) lines.push(`avalanche_n${i}_vm_eth_chain_block_bad_count_other{chain="c${i}"} ${i}`, `x{l="_vm_eth_chain_block_bad_count"} 1`);
    lines.push('avalanche_subnetevm_vm_eth_chain_block_bad_count{chain="L1"} 2');
    const series = seriesMatching(exposition(lines), 'avalanche_.+_vm_eth_chain_block_bad_count', '_vm_eth_chain_block_bad_count');
    expect(series).toEqual([{ labels: { chain: 'L1' }, value: 2, name: 'avalanche_subnetevm_vm_eth_chain_block_bad_count' }]);
    const one = `x{l="${'_vm_eth_chain_block_bad_count'.repeat(10_000)}"} 1\n`;
    expect(seriesMatching(one, 'avalanche_.+_vm_eth_chain_block_bad_count', '_vm_eth_chain_block_bad_count')).toEqual([]);
  });

  it('the new keys: ratioWith needs rate, minRate needs ratioWith, minus no rate, a pattern needs a fixed part and no join', () => {
    const problems = (raw: Record<string, unknown>) => specSchema.safeParse({ urls: { [A]: 'http://a:9650' }, metric: 'm', below: 1, ...raw }).error?.issues.map((i) => i.message);
    expect(problems({ ratioWith: 'f' })).toEqual(['a ratio of two counters needs rate: (the window of both rates)']);
    expect(problems({ minRate: 1 })).toEqual(['minRate guards a ratio: set ratioWith']);
    expect(problems({ minus: 'f', rate: '1m' })).toEqual(['minus judges the difference of two levels: not with rate or ratioWith']);
    expect(problems({ metric: '~.+_x' })?.[0]).toMatch(/^a metric pattern needs a fixed part of at least 4 name characters/);
    expect(problems({ metric: '~avalanche_(' })?.[0]).toMatch(/is not a regular expression/);
    expect(problems({ metric: '~avalanche_.+', minus: 'f' })).toEqual(['ratioWith and minus join two named metrics: not a ~pattern']);
    expect(problems({ metric: '~avalanche_.+_bad_count' })).toBeUndefined();
  });

  it('its keys: exactly one level, a regex that compiles, a target at least; network defaults for validators: all', () => {
    const problems = (raw: Record<string, unknown>) => specSchema.safeParse({ urls: { [A]: 'http://a:9650' }, metric: 'm', ...raw }).error?.issues.map((i) => i.message);
    expect(problems({})).toEqual(['set exactly one of "above" or "below"']);
    expect(problems({ above: 1, match: { tag: '~(' } })?.[0]).toMatch(/^"\(" is not a regular expression/);
    expect(problems({ above: 1, urls: {} })?.[0]).toMatch(/list at least one target/);
    expect(problems({ above: 1, metric: 'bad-name' })?.[0]).toMatch(/expected a Prometheus metric name/);
    expect(parse({ above: 1 }).network).toBe('mainnet');
  });

  it('costs no compute units: one read of each node; describes itself in one line', () => {
    const s = parse({ urls: { [A]: 'http://a:9650', [B]: 'http://b:9650' }, metric: 'avalanche_snowman_polls_failed', match: { chain: 'C' }, rate: '5m', aggregate: 'sum', above: 0.1 });
    expect(nodeMetrics.cost(s)).toEqual({ calls: [], nodeCalls: 2 });
    expect(nodeMetrics.describe(s)).toBe('sum(rate(avalanche_snowman_polls_failed{chain="C"}[5m])) > 0.1 on 2 nodes (at most 100 series a node; a node exporting none matching for 3 reads is said)');
    const ratio = parse({ metric: 'ok', ratioWith: 'bad', rate: '5m', minRate: 0.2, below: 0.95, optional: true, when: { metric: 'g', above: 0 } });
    expect(nodeMetrics.describe(ratio)).toBe('rate(ok[5m]) / (rate(ok[5m]) + rate(bad[5m])) < 0.95 on 1 node (judged from 0.2/s of both together, while g > 0) (at most 100 series a node; optional: a node exporting none is not said)');
  });
});

describe('node-metrics: what avawatch check and /metrics say of a rule', () => {
  it('check warns of each name no AvalancheGo exports (metric, ratioWith, minus, when, until), naming the nearest; a ~pattern is not looked up', () => {
    const tail = ': it would match no series on a node (docs/rules.md#node-metrics)';
    const typos = parse({ metric: 'avalanche_snowman_blks_procesing', above: 1, when: { metric: 'avalanche_network_peer', above: 0 }, until: 'avalanche_network_peerz', minus: 'foo_bar' });
    expect(nodeMetrics.warnings?.(typos)).toEqual([
      `avalanche_snowman_blks_procesing: no AvalancheGo 1.14 or 1.15 exports it (did you mean avalanche_snowman_blks_processing?)${tail}`,
      `foo_bar is not a name AvalancheGo exports (its names start with avalanche_)${tail}`,
      `avalanche_network_peer: no AvalancheGo 1.14 or 1.15 exports it (did you mean avalanche_network_peers?)${tail}`,
      `avalanche_network_peerz: no AvalancheGo 1.14 or 1.15 exports it (did you mean avalanche_network_peers?)${tail}`,
    ]);
    expect(nodeMetrics.warnings?.(parse({ metric: 'avalanche_snowman_polls_failed', ratioWith: 'avalanche_snowman_polls_sucessful', rate: '1m', above: 1 }))).toEqual([
      `avalanche_snowman_polls_sucessful: no AvalancheGo 1.14 or 1.15 exports it (did you mean avalanche_snowman_polls_successful?)${tail}`,
    ]);
    expect(nodeMetrics.warnings?.(parse({ metric: '~avalanche_.+_blks_procesing', above: 1 }))).toEqual([]);
    expect(nodeMetrics.warnings?.(parse({ above: 1 }))).toEqual([]);
  });

  it('describes each form in one line: a level, a difference, guards, a fold', () => {
    const none = 'a node exporting none matching for 3 reads is said';
    expect(nodeMetrics.describe(parse({ below: 3 }))).toBe(`avalanche_snowman_blks_processing < 3 on 1 node (at most 100 series a node; ${none})`);
    expect(nodeMetrics.describe(parse({ metric: 'a', match: { chain: 'C' }, minus: 'b', minusLabels: { tag: 'all' }, until: 'c', subnets: { [A]: ['s'] }, above: 0, maxSeries: 5 }))).toBe(
      `a{chain="C"} - b{tag="all"} > 0 on 1 node (until the node exports c, the tag of each node's subnets) (at most 5 series a node; ${none})`,
    );
    expect(nodeMetrics.describe(parse({ metric: 'a', match: { chain: 'C' }, minus: 'b', above: 0 }))).toBe(`a{chain="C"} - b{chain="C"} > 0 on 1 node (at most 100 series a node; ${none})`);
    expect(nodeMetrics.describe(parse({ metric: 'a', rate: '90s', above: 1, aggregate: 'max' }))).toBe(`max(rate(a[1m30s])) > 1 on 1 node (at most 100 series a node; ${none})`);
  });

  it('its gauges: each sample carries the labels its declaration names, with help that says what it is', () => {
    const s = parse({ urls: { [A]: 'http://a:9650' }, above: 15 });
    const states = new Map<string, State>([
      [`${A}:x{}`, { target: A, at: T0, labels: { chain: 'C' }, value: 20 }],
      [`${A}:count`, { target: A, at: T0, labels: {}, count: { matched: 1, cut: 0, none: 0 } }],
    ]);
    const samples = nodeMetrics.samples(s, states, at(0));
    expect(samples.map((g) => g.metric).sort()).toEqual(['avawatch_node_metric_series', 'avawatch_node_metric_series_cut', 'avawatch_node_metric_value']);
    for (const g of samples) {
      const declared = nodeMetrics.gauges?.find((d) => d.name === g.metric);
      expect(declared?.labelNames, g.metric).toEqual(['rule', ...Object.keys(g.labels)]);
      expect(declared?.help.length, g.metric).toBeGreaterThan(40);
    }
    expect(nodeMetrics.labelNames).toEqual(['node', 'metric', 'series', 'chain']);
  });
});
