import { parseDuration } from '../base/duration.js';
import type { LoadedConfig } from '../config/load.js';
import { SAMPLED } from '../history/sampler.js';
import type { HistoryEntry, StateStore } from '../store/index.js';
import { openConfiguredStore } from '../app/compose.js';
import { jsonLine, printable } from './terminal.js';
import { systemClock } from '../base/clock.js';

export interface HistoryOptions {
  validator?: string;
  since?: string;
  json?: boolean;
}

/** Entries shown at most: a wider window says so and asks for a narrower one. */
export const HISTORY_LIMIT = 1000;

export interface Figure {
  series: string;
  entity: string;
  latest: number;
  latestAt: number;
  min: number;
  max: number;
  count: number;
}

/** `avawatch history`: the timeline newest first (and a validator's figures), from the state file. */
export async function historyCommand(loaded: LoadedConfig, o: HistoryOptions, now = systemClock.now()): Promise<{ lines: string[]; notes: string[] }> {
  const since = sinceOf(o.since ?? '24h', now);
  const store = await openConfiguredStore(loaded, { write: false }); // reads beside a running daemon
  try {
    const who = o.validator === undefined ? undefined : identify(loaded, o.validator);
    const entries = who ? await byValidator(store, since, who.keys) : await store.timeline({ since, limit: HISTORY_LIMIT });
    const figures = who ? await figuresOf(store, since, who, entries) : [];
    const notes = entries.length >= HISTORY_LIMIT ? [`only the newest ${HISTORY_LIMIT} entries are shown: narrow --since`] : [];
    const from = new Date(since).toISOString();
    if (o.json) {
      const lines = [
        ...entries.map((e) => jsonLine({ type: 'entry', at: new Date(e.at).toISOString(), severity: e.severity, status: e.status, rule: e.rule, kind: e.kind, subject: e.subject, summary: e.summary, labels: e.labels, details: e.details })),
        ...figures.map((f) => jsonLine({ type: 'figure', series: f.series, entity: f.entity, latest: f.latest, latestAt: new Date(f.latestAt).toISOString(), min: f.min, max: f.max, count: f.count })),
      ];
      return { lines, notes };
    }
    const about = o.validator === undefined ? '' : ` about ${printable(o.validator)}`;
    const lines = entries.length === 0 ? [`no events or state changes${about} since ${from}`] : [`events and state changes${about} since ${from}, newest first:`];
    for (const e of entries) lines.push(`${new Date(e.at).toISOString()} ${e.severity.toUpperCase()} ${e.status} ${e.rule} ${printable(e.subject)}: ${printable(e.summary)}`);
    if (who) {
      lines.push(figures.length === 0 ? `no sampled figures${about} since ${from}` : `sampled figures since ${from}:`);
      for (const f of figures) lines.push(`  ${f.series} ${printable(f.entity)}: latest ${f.latest} at ${new Date(f.latestAt).toISOString()}, min ${f.min}, max ${f.max}, ${f.count} sample${f.count === 1 ? '' : 's'}`);
    }
    return { lines, notes };
  } finally {
    await store.close();
  }
}

/** A duration back from now (24h, 7d) or an ISO time. */
export function sinceOf(text: string, now: number): number {
  const ms = parseDuration(text);
  if (ms !== undefined) return now - ms;
  const at = /^\d{4}-\d\d-\d\d/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) throw new Error(`--since: "${text}" is neither a duration such as 24h or 7d nor an ISO time such as 2026-01-31T12:00:00Z`);
  return at;
}

interface Who {
  /** What alerts may name it by: the name (label validator), the NodeID (label node, or the subject). */
  keys: string[];
  nodeIds: Set<string>;
  validationIds: Set<string>;
}

/** An inventory name or a NodeID, with what the inventory says about it. */
function identify(loaded: LoadedConfig, validator: string): Who {
  const found = loaded.inventory.find((v) => v.name === validator || v.nodeId === validator);
  const keys = new Set([validator]);
  const nodeIds = new Set<string>();
  const validationIds = new Set<string>();
  if (validator.startsWith('NodeID-')) nodeIds.add(validator);
  if (found) {
    keys.add(found.name);
    keys.add(found.nodeId);
    nodeIds.add(found.nodeId);
    for (const id of found.validationIds ?? []) validationIds.add(id);
  }
  return { keys: [...keys], nodeIds, validationIds };
}

async function byValidator(store: StateStore, since: number, keys: readonly string[]): Promise<HistoryEntry[]> {
  const seen = new Map<number, HistoryEntry>();
  for (const key of keys) for (const e of await store.timeline({ since, validator: key, limit: HISTORY_LIMIT })) seen.set(e.id, e);
  return [...seen.values()].sort((a, b) => b.at - a.at || b.id - a.id).slice(0, HISTORY_LIMIT);
}

/** Its uptime by NodeID, its L1 balances by the validation IDs the inventory lists or its alerts name. */
async function figuresOf(store: StateStore, since: number, who: Who, entries: readonly HistoryEntry[]): Promise<Figure[]> {
  for (const e of entries) {
    if (e.labels['node']?.startsWith('NodeID-')) who.nodeIds.add(e.labels['node']);
    if (e.labels['validation_id']) who.validationIds.add(e.labels['validation_id']);
  }
  const out: Figure[] = [];
  for (const def of SAMPLED) {
    // The network's figures are no validator's.
    const entities = def.entity === 'node_id' ? who.nodeIds : def.entity === 'validation_id' ? who.validationIds : new Set<string>();
    for (const entity of entities) {
      const rows = await store.samples(def.series, entity, since);
      const last = rows.at(-1);
      if (!last) continue;
      let min = Infinity;
      let max = -Infinity;
      for (const r of rows) {
        min = Math.min(min, r.value);
        max = Math.max(max, r.value);
      }
      out.push({ series: def.series, entity, latest: last.value, latestAt: last.at, min, max, count: rows.length });
    }
  }
  return out;
}
