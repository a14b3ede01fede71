import { composeApp, openConfiguredStore } from '../app/compose.js';
import type { Clock } from '../base/clock.js';
import type { LoadedConfig } from '../config/load.js';
import { errorText } from '../engine/engine.js';
import { causeOf } from '../engine/cause.js';
import { jsonLine, printable } from './terminal.js';
import { logWarnings } from './warnings.js';

export interface OnceOptions {
  rule?: string | undefined;
  json?: boolean | undefined;
  /** Deliver what is due, for at most sendTimeoutMs. */
  send?: boolean | undefined;
  sendTimeoutMs: number;
  logLevel?: string | undefined;
  /** The App's clock (tests run it on the simulator's); default the wall clock. */
  clock?: Clock;
}

/**
 * `avawatch once`: every rule (or one) evaluated once and committed as the daemon does; the
 * alerts printed. The exit code: 1 when a rule failed.
 */
export async function onceCommand(loaded: LoadedConfig, o: OnceOptions): Promise<number> {
  const store = await openConfiguredStore(loaded);
  const { app, sink } = composeApp(loaded, { logLevel: o.logLevel, store, ...(o.clock ? { clock: o.clock } : {}) });
  logWarnings(sink.log, loaded, o.send === true);
  try {
    const { alerts, failures, results } = await app.once(o.rule === undefined ? [] : [o.rule]);
    for (const a of alerts) {
      if (o.json) {
        const { alertId: _id, ...rest } = a;
        console.log(jsonLine({ type: 'alert', ...rest }));
      } else {
        console.log(`${a.at} ${a.severity.toUpperCase()} ${a.status} ${a.rule} ${printable(a.subject)}: ${printable(a.summary)}`);
      }
    }
    // What each rule saw of each inventory validator, ok or not, beside the alerts.
    if (o.json) for (const r of results) console.log(jsonLine(r));
    const left = o.send ? await app.delivery.drain(o.sendTimeoutMs) : (await app.store.pendingCount());
    if (left > 0) {
      const why = o.send ? 'could not be delivered yet' : 'not sent (use --send)';
      console.error(`${left} notification(s) ${why}: they wait in the outbox for the daemon`);
    }
    for (const line of failureLines(failures)) console.error(printable(line));
    return failures.length > 0 ? 1 : 0;
  } finally {
    await app.stop();
  }
}

/** One line per cause outside the rules (the service down), listing its rules; then each rule failing for its own reason. */
export function failureLines(failures: ReadonlyArray<{ rule: string; error: unknown }>): string[] {
  const byCause = new Map<string, { what: string; rules: string[]; error: string }>();
  const own: string[] = [];
  for (const f of failures) {
    const cause = causeOf(f.error);
    if (cause === undefined) {
      own.push(`rule ${f.rule} failed: ${errorText(f.error)}`);
      continue;
    }
    const group = byCause.get(cause.key) ?? { what: cause.what, rules: [], error: errorText(f.error) };
    group.rules.push(f.rule);
    byCause.set(cause.key, group);
  }
  const grouped = [...byCause.values()].map((g) => `${g.what}: ${g.rules.length} rule${g.rules.length === 1 ? '' : 's'} failed (${g.rules.join(', ')}): ${g.error}`);
  return [...grouped, ...own];
}
