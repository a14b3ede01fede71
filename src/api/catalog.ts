// Facts about the live service that more than one part needs (simulator, rules, budget).

export const METRICS = [
  'activeAddresses',
  'activeSenders',
  'cumulativeTxCount',
  'cumulativeAddresses',
  'cumulativeContracts',
  'cumulativeDeployers',
  'contracts',
  'deployers',
  'gasUsed',
  'txCount',
  'avgGps',
  'maxGps',
  'avgTps',
  'maxTps',
  'avgGasPrice',
  'maxGasPrice',
  'feesPaid',
] as const;
export type MetricName = (typeof METRICS)[number];

export const TIME_INTERVALS = ['hour', 'day', 'week', 'month'] as const;
export type TimeInterval = (typeof TIME_INTERVALS)[number];

/** cumulative*, avg*, max*, contracts, deployers and feesPaid exist only per day. */
export function supportedIntervals(metric: MetricName): readonly TimeInterval[] {
  const dayOnly = /^(cumulative|avg|max)/.test(metric) || ['contracts', 'deployers', 'feesPaid'].includes(metric);
  return dayOnly ? ['day'] : TIME_INTERVALS;
}

/** Start (unix seconds, UTC) of the interval that holds `t`: hours, days, Monday weeks, months. */
export function intervalStart(interval: TimeInterval, t: number): number {
  const d = new Date(t * 1000);
  switch (interval) {
    case 'hour':
      return Math.floor(t / 3600) * 3600;
    case 'day':
      return Math.floor(t / 86_400) * 86_400;
    case 'week': {
      const day = Math.floor(t / 86_400) * 86_400;
      const weekday = (d.getUTCDay() + 6) % 7; // Monday = 0
      return day - weekday * 86_400;
    }
    case 'month':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
  }
}

/** Start of the interval after the one starting at `start`. */
export function nextIntervalStart(interval: TimeInterval, start: number): number {
  if (interval === 'month') {
    const d = new Date(start * 1000);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
  }
  return start + { hour: 3600, day: 86_400, week: 604_800 }[interval];
}

/** Compute units per call on the live service (api-notes.md); unlisted endpoints are assumed 20. */
export function computeUnits(method: string, path: string): { api: 'data' | 'metrics'; cu: number } {
  if (path.startsWith('/v2/chains/') || path.startsWith('/v1/avg_tps/')) return { api: 'metrics', cu: 100 };
  // The Metrics API's other /v2/ series (staking, fees per validation, node or subnet): its budget too.
  if (path.startsWith('/v2/')) return { api: 'metrics', cu: 100 };
  if (path.includes('/transactions:listStaking')) return { api: 'data', cu: 100 };
  if (method === 'GET' && /^\/v1\/operations\/[^/]+$/.test(path)) return { api: 'data', cu: 10 };
  return { api: 'data', cu: 20 };
}

export const NAVAX_PER_AVAX = 1_000_000_000n;

/** One call as `avawatch check` counts it: identical keys from different rules are made once. */
export interface ApiCall {
  api: 'data' | 'metrics';
  key: string;
  cu: number;
}

export function apiCall(method: 'GET' | 'POST', path: string, query: Record<string, string | undefined> = {}): ApiCall {
  const q = Object.entries(query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return { ...computeUnits(method, path), key: `${method} ${path}${q ? `?${q}` : ''}` };
}

/** AVAX's asset id on the P-chain of each network: the stake of a primary-network transaction (avalanchego genesis/genesis_test.go TestAVAXAssetID; CB58, checksum included). */
export const AVAX_ASSET_ID = {
  mainnet: 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z',
  fuji: 'U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK',
  testnet: 'U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK',
} as const;
