import type { FiringAlert } from '../alerts/view.js';
import { CAUSE_RULE } from '../alerts/labels.js';
import type { NetworkBaseline } from '../engine/incidents.js';
import { INCIDENT_ALERTNAME } from '../incidents/condition.js';
import type { Sample } from '../store/index.js';
import { MAX_ROWS } from './format.js';
import type { Band, ValidatorRow } from './validators.js';

// The page's view of the network (issue 40): each network's baseline (count, versions, age or why
// it is stale), its open incidents read from their stored alerts, and the band of the network's
// uptime drawn behind each validator's own line. A stale or absent baseline draws no band.

/** Versions a network's block names; the rest are counted together. */
export const TOP_VERSIONS = 5;

export interface IncidentRow {
  key: string;
  scope: string;
  /** `host=h1` of a group incident. */
  group: string | undefined;
  /** `validator-health/uptime` of a network-wide one. */
  family: string | undefined;
  severity: string;
  summary: string;
  networkShare: string | undefined;
  ownShare: string | undefined;
  validators: string[];
  /** Unix seconds. */
  since: number;
}

export interface NetworkRow {
  network: string;
  /** Active validators at the last whole sweep; undefined when there is no baseline. */
  count: number | undefined;
  /** The most common versions first, at most TOP_VERSIONS. */
  versions: Array<{ version: string; count: number }>;
  /** Validators on the versions not named, and how many versions those are. */
  otherVersions: { validators: number; versions: number };
  /** When the last whole sweep was read (unix s, a wall stamp) and how old it is (ms, on the steady clock). */
  sweptAt: number | undefined;
  ageMs: number | undefined;
  /** Why no network verdict is given now, in words ("baseline stale: …"), or undefined. */
  stale: string | undefined;
  median: { uptime: number | undefined; reachability: number | undefined };
  incidents: IncidentRow[];
}

/** testnet is fuji: a rule may say either. */
export const networkName = (n: string | undefined): string => (n === 'testnet' ? 'fuji' : (n ?? ''));

export function isIncident(a: Pick<FiringAlert, 'rule' | 'labels'>): boolean {
  return a.rule === CAUSE_RULE && a.labels['alertname'] === INCIDENT_ALERTNAME;
}

/** The baseline's state in words for the page: undefined while it gives verdicts. */
export function staleText(b: NetworkBaseline | undefined, network: string): string {
  if (b === undefined) return `no network baseline for ${network}`;
  const why = (b.stale ?? 'not usable').replace(/^stale: /, '');
  return `baseline stale: ${why}`;
}

/** One block per network with a baseline or an open incident; the baselines' networks first, in their order. */
export function networkRows(baselines: readonly NetworkBaseline[], alerts: readonly FiringAlert[]): NetworkRow[] {
  const rows = new Map<string, NetworkRow>();
  for (const b of baselines) {
    const network = networkName(b.view.network);
    const sorted = Object.entries(b.view.versions).sort(([va, a], [vb, c]) => c - a || va.localeCompare(vb));
    const rest = sorted.slice(TOP_VERSIONS);
    rows.set(network, {
      network,
      count: b.view.at === undefined ? undefined : b.view.count,
      versions: sorted.slice(0, TOP_VERSIONS).map(([version, count]) => ({ version, count })),
      otherVersions: { validators: rest.reduce((sum, [, n]) => sum + n, 0), versions: rest.length },
      sweptAt: b.view.at === undefined ? undefined : b.view.at / 1000,
      ageMs: b.ageMs,
      stale: b.stale === undefined ? undefined : staleText(b, network),
      median: { uptime: b.view.quantiles.uptime?.p50, reachability: b.view.quantiles.reachability?.p50 },
      incidents: [],
    });
  }
  for (const a of alerts) {
    if (!isIncident(a)) continue;
    const network = networkName(a.labels['network']);
    const row =
      rows.get(network) ??
      ({ network, count: undefined, versions: [], otherVersions: { validators: 0, versions: 0 }, sweptAt: undefined, ageMs: undefined, stale: staleText(undefined, network), median: { uptime: undefined, reachability: undefined }, incidents: [] } satisfies NetworkRow);
    rows.set(network, row);
    row.incidents.push({
      key: a.key,
      scope: a.labels['scope'] ?? '',
      group: a.labels['group'],
      family: a.labels['family'],
      severity: a.severity,
      summary: a.summary,
      networkShare: a.details["Share of the network's stake"],
      ownShare: a.details['Share of your stake'],
      validators: (a.details['Validators'] ?? '').split(', ').filter((v) => v !== ''),
      since: Date.parse(a.startsAt) / 1000,
    });
  }
  return [...rows.values()];
}

/** A series' samples of one entity since a moment, as the store answers (store/types.ts). */
type History = (series: string, entity: string, sinceMs: number) => Sample[] | Promise<Sample[]>;

/** The band of one network from the history: the three series joined by moment (a moment missing one is left out). */
export async function bandOf(history: History, network: string, sinceMs: number): Promise<Band> {
  const read = async (p: string) => {
    const got = await history(`network_uptime_${p}`, network, sinceMs);
    // The rule may name Fuji `testnet`: its samples are kept by the name it gave.
    return got.length > 0 || network !== 'fuji' ? got : history(`network_uptime_${p}`, 'testnet', sinceMs);
  };
  const p10 = new Map((await read('p10')).map((s) => [s.at, s.value]));
  const p90 = new Map((await read('p90')).map((s) => [s.at, s.value]));
  const points: Band['points'] = [];
  for (const s of await read('p50')) {
    const lo = p10.get(s.at);
    const hi = p90.get(s.at);
    if (lo !== undefined && hi !== undefined) points.push({ at: s.at / 1000, p10: lo, p50: s.value, p90: hi });
  }
  return { points };
}

/**
 * Each shown validator's chart gets its network's band, or the words why there is none (a
 * stale or absent baseline). Read once per network, not per row.
 */
export async function withBands(rows: readonly ValidatorRow[], baselines: readonly NetworkBaseline[], history: History | undefined, sinceMs: number): Promise<void> {
  const byNetwork = new Map(baselines.map((b) => [networkName(b.view.network), b]));
  const bands = new Map<string, Band>();
  for (const r of rows.slice(0, MAX_ROWS)) {
    const network = networkName(r.network);
    const b = byNetwork.get(network);
    if (b === undefined || b.stale !== undefined || !history) {
      r.chart.baseline = staleText(b, network);
      continue;
    }
    let band = bands.get(network);
    if (!band) bands.set(network, (band = await bandOf(history, network, sinceMs)));
    if (band.points.length === 0) r.chart.baseline = `no network baseline for ${network} in the history yet`;
    else r.chart.band = band;
  }
}

/** Why a firing alert is held back, from the receivers it is held from: all of them, or named. */
export function heldText(receivers: readonly string[], heldFor: (receiver: string) => string | undefined): string | undefined {
  const held = receivers.flatMap((r) => {
    const why = heldFor(r);
    return why === undefined ? [] : [{ r, why }];
  });
  const first = held[0];
  if (!first) return undefined;
  return held.length === receivers.length ? first.why : `${first.why} (from ${held.map((h) => h.r).join(', ')})`;
}
