import { firingAlerts } from '../alerts/view.js';
import { monoOf, type Clock } from '../base/clock.js';
import { scrub } from '../base/secret.js';
import { VERSION } from '../base/version.js';
import { channel } from '../channels/registry.js';
import type { LoadedConfig } from '../config/load.js';
import type { Engine } from '../engine/engine.js';
import type { FailureCounts } from '../engine/failing.js';
import type { Metrics } from '../metrics/registry.js';
import { explorersOf } from '../status/links.js';
import { heldText } from '../status/network.js';
import { statusSnapshot, type StatusSnapshot } from '../status/snapshot.js';
import type { StateStore } from '../store/index.js';
import type { Apis } from './apis.js';

/** What the page reads of the store. */
export type PageReads = Pick<StateStore, 'activeAlerts' | 'outboxCounts' | 'timeline' | 'samples' | 'silences' | 'receiverStats' | 'lastEvents'>;

/**
 * The store as the page reads it while the daemon knows it out of reach (stepped down): nothing,
 * at once. The page then shows why at its top (its readiness), not an error or a wait.
 */
export const UNREACHABLE: PageReads = {
  activeAlerts: () => Promise.resolve([]),
  outboxCounts: () => Promise.resolve({ pending: 0, sent: 0, dead: 0, muted: 0 }),
  timeline: () => Promise.resolve([]),
  samples: () => Promise.resolve([]),
  silences: () => Promise.resolve([]),
  receiverStats: () => Promise.resolve([]),
  lastEvents: () => Promise.resolve([]),
};

export interface AppParts {
  loaded: LoadedConfig;
  store: PageReads;
  clock: Clock;
  engine: Engine;
  failures: FailureCounts;
  metrics: Metrics;
  limiters: Apis['limiters'];
  ready: () => { ready: boolean; problems: string[] };
}

/** What the status page shows: the state /metrics and /api/v1/alerts read, at one moment. */
export function appSnapshot(p: AppParts): Promise<StatusSnapshot> {
  const { loaded, store, clock, engine } = p;
  return statusSnapshot({
    version: VERSION,
    now: () => new Date(clock.now()),
    rules: loaded.rules,
    firing: () => firingAlerts(store),
    samples: (metric) => engine.samples(metric),
    failures: p.failures,
    metrics: p.metrics,
    outbox: () => store.outboxCounts(),
    limiters: p.limiters,
    ready: p.ready,
    // The page's windows start at wall times; alerts and samples are kept on the steady clock.
    timeline: (q) => store.timeline({ ...q, since: monoOf(clock, q.since) }),
    // At most a chart's worth of points per entity, however many samples the window holds.
    history: (series, entity, since) => store.samples(series, entity, monoOf(clock, since), { until: clock.mono(), points: 240 }),
    silences: () => store.silences(clock.now()),
    receivers: () => loaded.config.receivers.map((r) => ({ name: r.name, type: r.type, disabled: channel(r.type).disabledReason(r) })),
    receiverStats: () => store.receiverStats(),
    redact: (text) => scrub(text, loaded.secrets),
    explorers: explorersOf(loaded.config.status.explorerUrl),
    inventory: loaded.inventory,
    historyWindowMs: loaded.config.history.keep,
    ruleStates: (rule) => engine.view(rule)?.states,
    lastEvents: (since) => store.lastEvents(monoOf(clock, since)),
    baselines: () => engine.baselines(),
    // Held from a receiver while its incident fires there (the engine's own answer, as delivery asks it).
    heldFor: (rule, key) => heldText(loaded.config.receivers.map((r) => r.name), (receiver) => engine.heldFor(rule, key, receiver)),
  });
}
