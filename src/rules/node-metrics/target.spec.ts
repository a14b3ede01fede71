import { describe, expect, it } from 'vitest';
import { spec as specSchema } from './schema.js';
import { readTarget } from './target.js';

// What one read of a target gives a rule: its series (matched, joined), or why none are judged.

const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const parse = (raw: Record<string, unknown>) => specSchema.parse({ urls: { [A]: 'http://a:9650' }, metric: 'avalanche_health_checks_failing', above: 0, ...raw });
const text = (lines: string[]) => `${lines.join('\n')}\n`;

describe('node-metrics: one read of a target', () => {
  it('subnets: only the series of the subnets the target validates, by the subnet label; none listed is nothing to judge, said', () => {
    const t = text(['avalanche_health_checks_failing{tag="subA"} 1', 'avalanche_health_checks_failing{tag="subB"} 2', 'avalanche_health_checks_failing{tag="all"} 3', 'avalanche_health_checks_failing{chain="subA"} 4']);
    expect(readTarget(parse({ subnets: { [A]: ['subA', 'other'] } }), t, A)).toEqual({ series: [{ labels: { tag: 'subA' }, value: 1 }] });
    expect(readTarget(parse({ subnets: { [A]: ['subA'] }, subnetLabel: 'chain' }), t, A)).toEqual({ series: [{ labels: { chain: 'subA' }, value: 4 }] });
    expect(readTarget(parse({ subnets: { [A]: ['subB'] }, match: { tag: '~sub.*' } }), t, A).series.map((x) => x.value)).toEqual([2]);
    const none = { series: [], skip: 'validates no subnet besides the Primary Network (the inventory lists no subnets): nothing to judge' };
    expect(readTarget(parse({ subnets: { [A]: [] } }), t, A)).toEqual(none);
    expect(readTarget(parse({ subnets: { other: ['subA'] } }), t, A)).toEqual(none);
    expect(readTarget(parse({}), t, A).series).toHaveLength(4);
  });

  it('when: judged only while a series of the guard is above its level; why not, with the values read', () => {
    const s = parse({ when: { metric: 'g', above: 5 } });
    const ours = 'avalanche_health_checks_failing 1';
    expect(readTarget(s, text([ours]), A)).toEqual({ series: [], skip: 'g is not exported (not above 5): not judged' });
    expect(readTarget(s, text([ours, 'g{a="1"} 5', 'g{a="2"} 4']), A)).toEqual({ series: [], skip: 'g is 5, 4 (not above 5): not judged' });
    expect(readTarget(s, text([ours, 'g{a="1"} 5', 'g{a="2"} 6']), A)).toEqual({ series: [{ labels: {}, value: 1 }] });
  });

  it('until: once the target exports it, the rule no longer applies there, whatever else it reads', () => {
    const s = parse({ until: 'successor', when: { metric: 'g', above: 5 } });
    expect(readTarget(s, text(['avalanche_health_checks_failing 1', 'successor{chain="C"} 0']), A)).toEqual({ series: [], retired: 'the node exports successor' });
    expect(readTarget(s, text(['avalanche_health_checks_failing 1', 'successor_total 0', 'g 6']), A)).toEqual({ series: [{ labels: {}, value: 1 }] });
  });

  it('ratioWith and minus join the series of the same labels; minusLabels names the partner\'s own; none is undefined', () => {
    const t = text(['a{chain="C",tag="x"} 10', 'a{chain="P",tag="x"} 7', 'b{chain="C",tag="x"} 4', 'b{chain="C",tag="all"} 1']);
    expect(readTarget(parse({ metric: 'a', minus: 'b' }), t, A).series).toEqual([
      { labels: { chain: 'C', tag: 'x' }, value: 10, other: 4 },
      { labels: { chain: 'P', tag: 'x' }, value: 7, other: undefined },
    ]);
    expect(readTarget(parse({ metric: 'a', minus: 'b', minusLabels: { tag: 'all' } }), t, A).series.map((x) => x.other)).toEqual([1, undefined]);
    expect(readTarget(parse({ metric: 'a', ratioWith: 'b', rate: '1m' }), t, A).series.map((x) => x.other)).toEqual([4, undefined]);
  });

  it('a ~pattern: each series by its own name', () => {
    const t = text(['avalanche_x_vm_bad_count{chain="C"} 2', 'avalanche_y_vm_bad_count 3', 'avalanche_x_vm_good_count 9']);
    expect(readTarget(parse({ metric: '~avalanche_.+_vm_bad_count' }), t, A).series).toEqual([
      { labels: { chain: 'C' }, value: 2, name: 'avalanche_x_vm_bad_count' },
      { labels: {}, value: 3, name: 'avalanche_y_vm_bad_count' },
    ]);
  });
});
