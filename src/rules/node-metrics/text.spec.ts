import { describe, expect, it } from 'vitest';
import { spec as specSchema, type State } from './schema.js';
import { describeSeries, levelText, matchText, percent, rateText, seriesLabel, valueText } from './text.js';

// How the kind's alerts write what they judged: the words an operator reads in a summary.

const parse = (raw: Record<string, unknown>) => specSchema.parse({ urls: { a: 'http://a:9650' }, metric: 'm', ...raw });
const series = (labels: Record<string, string>, over: Partial<State> = {}): State => ({ target: 'a', at: 0, labels, ...over });

describe('node-metrics text', () => {
  it('a level: plain, per second for a rate, a percentage for a ratio', () => {
    expect(levelText(parse({ above: 15 }))).toBe('above 15');
    expect(levelText(parse({ below: 0.5, rate: '1m' }))).toBe('below 0.5/s');
    expect(levelText(parse({ below: 0.95, rate: '1m', ratioWith: 'n' }))).toBe('below 95%');
    expect(levelText(parse({ above: 0 }))).toBe('above 0');
  });

  it('a value: whole as it is, else 4 significant digits; per second for a rate; infinities as such', () => {
    expect(valueText(parse({ above: 1 }), 20)).toBe('20');
    expect(valueText(parse({ above: 1 }), 2 / 3)).toBe('0.6667');
    expect(valueText(parse({ above: 1 }), 123_456.78)).toBe('123500');
    expect(valueText(parse({ above: 1 }), Infinity)).toBe('Infinity');
    expect(valueText(parse({ above: 1 }), -Infinity)).toBe('-Infinity');
    expect(valueText(parse({ above: 1, rate: '1m' }), 0.72222)).toBe('0.7222/s');
    expect(valueText(parse({ above: 1, rate: '1m' }), 3)).toBe('3/s');
    expect(valueText(parse({ below: 1, rate: '1m', ratioWith: 'n' }), 0.86214)).toBe('86.21%');
  });

  it('a ratio as a percentage of 4 digits; a rate of 3', () => {
    expect([percent(1), percent(0), percent(0.5), percent(0.123456)]).toEqual(['100%', '0%', '50%', '12.35%']);
    expect([rateText(4), rateText(0.123456), rateText(1234.5)]).toEqual(['4', '0.123', '1230']);
  });

  it('matchers as Prometheus writes them: sorted, a ~regex as =~', () => {
    expect(matchText({})).toBe('');
    expect(matchText({ tag: '~all|application', chain: 'C' })).toBe('{chain="C",tag=~"all|application"}');
    expect(matchText({ q: 'a"b' })).toBe('{q="a\\"b"}');
  });

  it('a series by its labels, or for a fold by the matchers and how it folds', () => {
    const plain = parse({ above: 1, match: { chain: 'C' } });
    expect(describeSeries(plain, series({ chain: 'C', b: 'x' }))).toBe('m{b="x",chain="C"}');
    expect(describeSeries(plain, series({}))).toBe('m');
    expect(describeSeries(plain, series({}, { name: 'avalanche_x_m' }))).toBe('avalanche_x_m');
    expect(seriesLabel(plain, series({ chain: 'C' }))).toBe('{chain="C"}');
    expect(seriesLabel(plain, series({}))).toBe('{}');
    const folded = parse({ above: 1, match: { chain: 'C' }, aggregate: 'sum', rate: '5m' });
    expect(describeSeries(folded, series({}, { aggregate: true }))).toBe('sum of rate of m{chain="C"} over 5m');
    expect(seriesLabel(folded, series({}, { aggregate: true }))).toBe('sum');
    // A fold's state read by a rule that no longer folds (a reload): still named a fold.
    expect(describeSeries(plain, series({}, { aggregate: true }))).toBe('aggregate of m{chain="C"}');
    expect(seriesLabel(plain, series({}, { aggregate: true }))).toBe('aggregate');
  });

  it('a ratio and a difference name both metrics', () => {
    expect(describeSeries(parse({ below: 0.9, rate: '5m', ratioWith: 'bad' }), series({ chain: 'C' }))).toBe('m{chain="C"} / (m + bad) over 5m');
    expect(describeSeries(parse({ above: 3, minus: 'settled' }), series({ chain: 'C' }))).toBe('m{chain="C"} - settled');
    expect(describeSeries(parse({ above: 3, minus: 'settled', minusLabels: { tag: 'all' } }), series({ chain: 'C' }))).toBe('m{chain="C"} - settled{tag="all"}');
  });
});
