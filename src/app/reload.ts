import type { Config } from '../config/schema.js';
import type { LoadedConfig, LoadedRule } from '../config/load.js';
import { Secret } from '../base/secret.js';

/** Keys read once at start: a reload keeps their running value and says so. */
const RESTART_ONLY = ['state', 'server'] as const;

/** What a reload does, decided from the running config and the new one alone. */
export interface ReloadPlan {
  /** The new config with the restart-only keys at their running value. */
  next: LoadedConfig;
  /** Restart-only keys that changed in the file (they take effect at the next restart). */
  restartOnly: Array<(typeof RESTART_ONLY)[number]>;
  /** The API clients are rebuilt (`api` or `nodeApi` changed). */
  apis: boolean;
  /** The receivers and the delivery worker are rebuilt (`receivers` or `delivery` changed). */
  delivery: boolean;
  /**
   * The engine is rebuilt: it routes, fetches and judges health differently, so every rule
   * stops and starts again (its state is kept).
   */
  engine: boolean;
  heartbeat: boolean;
  added: LoadedRule[];
  removed: LoadedRule[];
  /** Rules whose keys, kind or inventory validators changed. */
  modified: LoadedRule[];
  /** Rules stopped before the new config takes over. */
  stop: string[];
  /** Rules started once it has. */
  start: LoadedRule[];
  /** Rules whose state, failures and series go: removed, or of another kind now (its old state cannot be read). */
  forget: LoadedRule[];
}

export function planReload(prev: LoadedConfig, file: LoadedConfig): ReloadPlan {
  const restartOnly = RESTART_ONLY.filter((key) => stableJson(prev.config[key]) !== stableJson(file.config[key]));
  const config: Config = { ...file.config };
  for (const key of restartOnly) config[key] = prev.config[key] as never;
  const next: LoadedConfig = { ...file, config };

  const changed = (...keys: Array<keyof Config>) => keys.some((k) => stableJson(prev.config[k]) !== stableJson(config[k]));
  const apis = changed('api', 'nodeApi');
  const engine = apis || changed('route', 'receivers', 'timeIntervals', 'health', 'incidents');
  const byName = new Map(prev.rules.map((r) => [r.name, r]));
  const removed = prev.rules.filter((r) => !next.rules.some((n) => n.name === r.name));
  const added = next.rules.filter((r) => !byName.has(r.name));
  const modified = next.rules.filter((r) => byName.has(r.name) && !sameRule(byName.get(r.name) as LoadedRule, r));
  const retyped = modified.filter((r) => byName.get(r.name)?.kind !== r.kind);
  return {
    next,
    restartOnly,
    apis,
    delivery: changed('receivers', 'delivery'),
    engine,
    heartbeat: changed('heartbeat'),
    added,
    removed,
    modified,
    stop: (engine ? prev.rules : [...removed, ...modified]).map((r) => r.name),
    start: engine ? next.rules : [...added, ...modified],
    forget: [...removed, ...retyped],
  };
}

/** JSON with keys as written, a secret by its value (a rotated key or URL is a change). */
export function stableJson(value: unknown): string {
  // The holder's own value: JSON.stringify has already turned a Secret into "<secret>" (its
  // toJSON) by the time a replacer sees `v`, so a rotated key or URL would look unchanged.
  return JSON.stringify(value, function (this: Record<string, unknown>, k, v: unknown) {
    const raw = this[k];
    return raw instanceof Secret ? `secret:${raw.reveal()}` : typeof v === 'bigint' ? `${v}n` : v;
  });
}

/** The same rule: what it watches and how it alerts (where in its file it sits does not count). */
function sameRule(a: LoadedRule, b: LoadedRule): boolean {
  // An inventory change (a validator's name or labels) changes what the rule's alerts say.
  return a.kind === b.kind && stableJson(a.spec) === stableJson(b.spec) && stableJson(a.validators ?? {}) === stableJson(b.validators ?? {});
}
