import { intervalStart, nextIntervalStart, type TimeInterval } from '../../api/catalog.js';
import { apiCall } from '../../api/catalog.js';
import type { MetricPoint } from '../../api/schemas.js';
import { formatDuration } from '../../base/duration.js';
import type { Condition, RuleKind } from '../types.js';
import { isoSeconds } from '../format.js';
import { spec, state, type Spec, type State } from './schema.js';

const NOMINAL_SECONDS: Record<TimeInterval, number> = { hour: 3600, day: 86_400, week: 604_800, month: 2_592_000 };

export const metricThreshold: RuleKind<Spec, MetricPoint[], State> = {
  kind: 'metric-threshold',
  keyDetails: ['Points'],
  labelNames: ['chain_id', 'metric', 'time_interval'],
  spec: spec as unknown as RuleKind<Spec, MetricPoint[], State>['spec'],
  ownsFor: true,
  state,
  gauges: [
    {
      name: 'avawatch_chain_metric_value',
      help: 'Latest complete value of a watched chain metric.',
      labelNames: ['rule', 'chain_id', 'metric', 'time_interval'],
    },
  ],

  async observe(s, { metrics, now, signal }) {
    const nowS = Math.floor(now.getTime() / 1000);
    // Enough intervals back to cover `for`, the running one and one spare.
    const span = (pointsNeeded(s) + 2) * NOMINAL_SECONDS[s.timeInterval];
    return metrics.chainMetric(s.chainId, s.metric, s.timeInterval, intervalStart(s.timeInterval, nowS - span), nowS, signal);
  },

  evaluate(_previous, points, now, s) {
    const nowS = Math.floor(now.getTime() / 1000);
    const judged = [...points]
      .filter((p) => s.includeIncomplete || nextIntervalStart(s.timeInterval, p.timestamp) <= nowS)
      .sort((a, b) => b.timestamp - a.timestamp);
    const latest = judged[0];
    const key = `${s.chainId}/${s.metric}/${s.timeInterval}`;
    const states = new Map<string, State>(latest ? [[key, { timestamp: latest.timestamp, value: latest.value }]] : []);
    const window = judged.slice(0, pointsNeeded(s));
    // Too few consecutive complete points: no verdict either way (a firing alert stays).
    const step = NOMINAL_SECONDS[s.timeInterval];
    const slack = s.timeInterval === 'month' ? 3 * 86_400 : 0; // months are 28 to 31 days
    const consecutive = window.every((p, i) => i === 0 || Math.abs(window[i - 1]!.timestamp - p.timestamp - step) <= slack);
    if (window.length < pointsNeeded(s) || !consecutive) return { states, alerts: [] };
    const holds = window.every((p) => breaches(s, p.value));
    const op = s.above !== undefined ? `above ${s.above}` : `below ${s.below}`;
    if (!latest) return { states, alerts: [], conditions: [] };
    if (!holds) {
      // The complete points read now: what the resolution says.
      const now = {
        summary: `${s.metric} on chain ${s.chainId} (per ${s.timeInterval}) is no longer ${op}: latest ${latest.value} at ${isoSeconds(latest.timestamp)}`,
        details: { Chain: s.chainId, Metric: s.metric, Interval: s.timeInterval, Points: window.map((p) => `${isoSeconds(p.timestamp)}=${p.value}`).join(', ') },
      };
      return { states, alerts: [], conditions: [], resolvedAs: () => now };
    }
    const span = s.for > 0 ? ` for ${formatDuration(s.for)}` : '';
    const condition: Condition = {
      key,
      subject: key,
      summary: `${s.metric} on chain ${s.chainId} (per ${s.timeInterval}) is ${op}${span}: latest ${latest.value} at ${isoSeconds(latest.timestamp)}`,
      resolvedSummary: `${s.metric} on chain ${s.chainId} (per ${s.timeInterval}) is no longer ${op}`,
      labels: { chain_id: s.chainId, metric: s.metric, time_interval: s.timeInterval },
      details: {
        Chain: s.chainId,
        Metric: s.metric,
        Interval: s.timeInterval,
        Condition: `${op}${span}`,
        Points: window.map((p) => `${isoSeconds(p.timestamp)}=${p.value}`).join(', '),
      },
    };
    return { states, alerts: [], conditions: [condition] };
  },

  samples(s, states) {
    return [...states.values()].map((st) => ({
      metric: 'avawatch_chain_metric_value',
      labels: { chain_id: s.chainId, metric: s.metric, time_interval: s.timeInterval },
      value: st.value,
    }));
  },

  describe: (s) =>
    `chain ${s.chainId} ${s.metric} per ${s.timeInterval} ${s.above !== undefined ? `> ${s.above}` : `< ${s.below}`}${s.for > 0 ? ` for ${formatDuration(s.for)}` : ''}`,
  cost: (s) => ({ calls: [apiCall('GET', `/v2/chains/${s.chainId}/metrics/${s.metric}`, { timeInterval: s.timeInterval })] }),
};

/** Complete points that must all breach: the ones covering `for`, at least the latest. */
function pointsNeeded(s: Spec): number {
  return Math.max(1, Math.ceil(s.for / 1000 / NOMINAL_SECONDS[s.timeInterval]));
}

function breaches(s: Spec, value: number): boolean {
  return s.above !== undefined ? value > s.above : value < (s.below as number);
}
