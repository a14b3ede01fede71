import { composeApp } from '../app/compose.js';
import type { Clock } from '../base/clock.js';
import type { LoadedConfig } from '../config/load.js';
import { errorText } from '../engine/engine.js';
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
  const { app, sink } = composeApp(loaded, { logLevel: o.logLevel, ...(o.clock ? { clock: o.clock } : {}) });
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
    const left = o.send ? await app.delivery.drain(o.sendTimeoutMs) : app.store.pendingCount();
    if (left > 0) {
      const why = o.send ? 'could not be delivered yet' : 'not sent (use --send)';
      console.error(`${left} notification(s) ${why}: they wait in the outbox for the daemon`);
    }
    for (const f of failures) console.error(`rule ${f.rule} failed: ${printable(errorText(f.error))}`);
    return failures.length > 0 ? 1 : 0;
  } finally {
    await app.stop();
  }
}
