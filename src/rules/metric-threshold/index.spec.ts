import { describe, expect, it } from 'vitest';
import { advance } from '../../alerts/lifecycle.js';
import { metricThreshold } from './index.js';
import { spec as specSchema } from './schema.js';

const H = 3600;
const T = 1_800_000_000 - (1_800_000_000 % H); // an hour boundary
const points = (...values: number[]) => values.map((value, i) => ({ timestamp: T - i * H, value })); // newest first; T is running

function run(raw: Record<string, unknown>, pts: Array<{ timestamp: number; value: number }>, now = T + 1800) {
  const s = specSchema.parse({ chainId: 43114, metric: 'txCount', timeInterval: 'hour', ...raw });
  return metricThreshold.evaluate(new Map(), pts, new Date(now * 1000), s);
}

describe('metric-threshold', () => {
  it('skips the running interval: a low running hour does not fire', () => {
    expect(run({ below: 100 }, points(5, 500, 500)).conditions).toEqual([]);
    expect(run({ below: 100, includeIncomplete: true }, points(5, 500, 500)).conditions).toHaveLength(1);
  });

  it('fires only when every complete point within `for` breaches', () => {
    expect(run({ below: 100, for: '2h' }, points(999, 5, 500)).conditions).toEqual([]);
    expect(run({ below: 100, for: '2h' }, points(999, 5, 6)).conditions?.[0]?.summary).toBe(
      `txCount on chain 43114 (per hour) is below 100 for 2h: latest 5 at ${new Date((T - H) * 1000).toISOString().replace('.000Z', 'Z')}`,
    );
  });

  it('resolves with the points read now; the ones it fired on only under "When it fired"', () => {
    const low = run({ below: 100 }, points(999, 5));
    const fired = advance([], low.conditions ?? [], T * 1000);
    // An hour later the hour that was running is complete, and high.
    const back = run({ below: 100 }, [{ timestamp: T + H, value: 7 }, ...points(250, 5)], T + H + 1800);
    const [resolved] = advance(fired.active, back.conditions ?? [], (T + H) * 1000, undefined, back.resolvedAs).notifications;
    const at = (t: number) => new Date(t * 1000).toISOString().replace('.000Z', 'Z');
    expect(resolved?.summary).toBe(`txCount on chain 43114 (per hour) is no longer below 100: latest 250 at ${at(T)}`);
    expect(resolved?.details).toMatchObject({ Points: `${at(T)}=250`, 'When it fired: Points': `${at(T - H)}=5` });
  });

  it('gives no verdict on a gap in the series', () => {
    const gappy = [{ timestamp: T - H, value: 5 }, { timestamp: T - 3 * H, value: 5 }];
    expect(run({ below: 100, for: '2h' }, gappy).conditions).toBeUndefined();
  });

  it('gives no verdict on too short a series: neither fires nor resolves', () => {
    expect(run({ above: 1, for: '5h' }, points(9, 9, 9)).conditions).toBeUndefined();
  });

  it('keeps the latest complete value for the gauge', () => {
    const s = specSchema.parse({ chainId: 'total', metric: 'txCount', timeInterval: 'hour', above: 1 });
    const r = run({ chainId: 'total', above: 1 }, points(1, 42));
    expect(metricThreshold.samples(s, r.states, new Date())).toEqual([{ metric: 'avawatch_chain_metric_value', labels: { chain_id: 'total', metric: 'txCount', time_interval: 'hour' }, value: 42 }]);
  });
});
