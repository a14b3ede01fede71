import { describe, expect, it } from 'vitest';
import { infixOf, spec, state, type State } from './schema.js';

// The rule's keys as `avawatch check` reads them, a ~pattern's fixed part (what finds its lines
// in a large exposition), and the state the engine stores and reads back after a restart.

const URLS = { 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg': 'http://127.0.0.1:9650' };

/** The messages of a refused rule, each with its path (a key's own, as the config loader says it). */
function refused(raw: Record<string, unknown>): string[] {
  const r = spec.safeParse({ urls: URLS, metric: 'avalanche_network_peers', below: 5, ...raw });
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.code === 'invalid_key' ? i.issues[0]?.message : i.message}`);
}

describe('node-metrics keys', () => {
  it('defaults: mainnet, no matcher, not optional, subnets compared on tag, at most 100 series a node', () => {
    expect(spec.parse({ urls: URLS, metric: 'avalanche_network_peers', below: 5 })).toEqual({ network: 'mainnet', urls: URLS, metric: 'avalanche_network_peers', below: 5, subnetLabel: 'tag', optional: false, match: {}, maxSeries: 100 });
  });

  it('a metric name as Prometheus writes one, whole; ratioWith, minus, when and until too', () => {
    for (const ok of ['a', '_x', ':x', 'avalanche_C_vm:x_9']) expect(refused({ metric: ok }), ok).toEqual([]);
    for (const bad of ['9x', 'x-y', ' x', 'x ', 'x{}', '']) expect(refused({ metric: bad }), bad).toEqual(['metric: expected a Prometheus metric name such as avalanche_snowman_blks_processing, or ~regex over names']);
    const named = 'expected a Prometheus metric name such as avalanche_snowman_blks_processing';
    expect(refused({ until: 'x y' })).toEqual([`until: ${named}`]);
    expect(refused({ when: { metric: '1x', above: 0 } })).toEqual([`when.metric: ${named}`]);
    expect(refused({ minus: 'a b' })).toEqual([`minus: ${named}`]);
  });

  it('label names in match, minusLabels and subnetLabel; minusLabels only with minus', () => {
    expect(refused({ match: { chain: 'C', _x9: '' } })).toEqual([]);
    expect(refused({ match: { '9x': 'C' } })).toEqual(['match.9x: expected a label name']);
    expect(refused({ match: { 'a:b': 'C' } })).toEqual(['match.a:b: expected a label name']);
    expect(refused({ subnetLabel: 'x-y' })).toEqual(['subnetLabel: expected a label name']);
    expect(refused({ minus: 'b', minusLabels: { tag: 'all' } })).toEqual([]);
    expect(refused({ minus: 'b', minusLabels: { 'x y': 'all' } })).toEqual(['minusLabels.x y: expected a label name']);
    expect(refused({ minusLabels: { tag: 'all' } })).toEqual(['minusLabels: minusLabels picks the series of minus: set minus']);
  });

  it('a matcher regex that does not compile is said with the engine\'s reason; plain text is never a regex', () => {
    expect(refused({ match: { tag: '(' } })).toEqual([]);
    expect(refused({ match: { tag: '~(' } })[0]).toMatch(/^match\.tag: "\(" is not a regular expression: Invalid regular expression/);
  });

  it('rate of at least 1s, minRate from 0, maxSeries 1..1000 whole, aggregate sum/min/max', () => {
    expect(refused({ rate: '1s', ratioWith: 'b', minRate: 0, maxSeries: 1000, aggregate: 'min' })).toEqual([]);
    expect(refused({ rate: '999ms' })).toEqual(['rate: rate: a window of at least 1s']);
    expect(refused({ rate: '1m', ratioWith: 'b', minRate: -0.1 })).toHaveLength(1);
    expect(refused({ maxSeries: 0 })).toHaveLength(1);
    expect(refused({ maxSeries: 1001 })).toHaveLength(1);
    expect(refused({ maxSeries: 1.5 })).toHaveLength(1);
    expect(refused({ aggregate: 'avg' })).toHaveLength(1);
    expect(refused({ maxSeries: 1 })).toEqual([]);
  });

  it('subnets: a list per target; from-inventory only through validators:', () => {
    expect(refused({ subnets: { 'NodeID-x': ['sub'] } })).toEqual([]);
    expect(refused({ subnets: 'from-inventory' })).toEqual(['subnets: subnets: from-inventory takes them from the inventory: select validators with validators: (or list them: {NodeID-…: [subnet ID]})']);
  });

  it('a level at most once; both is refused as none is', () => {
    expect(refused({ above: 1 })).toEqual([': set exactly one of "above" or "below"']);
    expect(refused({ below: undefined, above: 1 })).toEqual([]);
  });

  it('a ratio or a difference joins named metrics; each guard is said at its key', () => {
    expect(refused({ ratioWith: 'b' })).toEqual(['ratioWith: a ratio of two counters needs rate: (the window of both rates)']);
    expect(refused({ minRate: 1 })).toEqual(['minRate: minRate guards a ratio: set ratioWith']);
    expect(refused({ minus: 'b', ratioWith: 'c', rate: '1m' })).toEqual(['minus: minus judges the difference of two levels: not with rate or ratioWith']);
    expect(refused({ metric: '~avalanche_.+_bad_count', ratioWith: 'b', rate: '1m' })).toEqual(['metric: ratioWith and minus join two named metrics: not a ~pattern']);
    expect(refused({ metric: '~avalanche_.+_bad_count', rate: '1m' })).toEqual([]);
  });

  it('a ~pattern needs a fixed part of 4 name characters; one that does not compile is said', () => {
    expect(refused({ metric: '~abcd.+' })).toEqual([]);
    expect(refused({ metric: '~abc.+' })[0]).toMatch(/^metric: a metric pattern needs a fixed part of at least 4 name characters outside groups and alternatives \(as _eth_chain_block_bad_count in /);
    expect(refused({ metric: '~a|bcdef' })).toHaveLength(1);
    expect(refused({ metric: '~abcd(' })[0]).toMatch(/^metric: "abcd\(" is not a regular expression: /);
  });
});

describe('infixOf: the fixed part every name a pattern matches contains', () => {
  it('the longest run of name characters at the top level; the first of two as long', () => {
    expect(infixOf('avalanche_.+_eth_chain_block_bad_count')).toBe('_eth_chain_block_bad_count');
    expect(infixOf('abcd.efgh')).toBe('abcd');
    expect(infixOf('ab.cdefgh')).toBe('cdefgh');
    expect(infixOf('a:b_9')).toBe('a:b_9');
    expect(infixOf('.+')).toBeUndefined();
    expect(infixOf('')).toBeUndefined();
  });

  it('an escape, a class and a group are not fixed text; a class may start with ]', () => {
    expect(infixOf('ab\\wcdefg')).toBe('cdefg');
    expect(infixOf('abc[xyzw_]defg')).toBe('defg');
    expect(infixOf('[]abcdefgh]xy')).toBe('xy');
    expect(infixOf('abcd[efghijk')).toBe('abcd');
    expect(infixOf('abcd(efghijkl)x')).toBe('abcd');
    expect(infixOf('(a|b)abcd')).toBe('abcd');
    expect(infixOf('((ab))abcd')).toBe('abcd');
  });

  it('a quantified character ends the run; an alternative at the top level leaves no fixed part', () => {
    expect(infixOf('abcdefg?hij')).toBe('abcdef');
    expect(infixOf('abcdefg*hij')).toBe('abcdef');
    expect(infixOf('abcdefg+hij')).toBe('abcdef');
    expect(infixOf('abcdefg{2}hij')).toBe('abcdef');
    expect(infixOf('abcdef|ghijkl')).toBeUndefined();
  });
});

describe('node-metrics state', () => {
  it('what the engine stores reads back whole after a restart: a counter\'s points, a ratio\'s other counter, a target\'s count', () => {
    const series: State = { target: 'a', aggregate: false, value: 0.5, breach: true, at: 100, labels: { chain: 'C' }, name: 'n', other: { points: [[40, 1]], raw: 1 }, unjudged: 'why', points: [[40, 3]], absent: 1, raw: 3 };
    const count: State = { target: 'a', at: 100, labels: {}, count: { matched: 2, cut: 1, none: 0 }, skipped: 'why', retired: true };
    for (const st of [series, count]) expect(state.parse(JSON.parse(JSON.stringify(st)))).toEqual(st);
  });
});
