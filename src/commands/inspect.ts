import { hostname } from 'node:os';
import { firingAlerts } from '../alerts/view.js';
import type { LoadedConfig } from '../config/load.js';
import { scrub } from '../base/secret.js';
import { channel } from '../channels/registry.js';
import { DeliveryError, type AlertMessage } from '../channels/types.js';
import { SqliteStore } from '../store/index.js';
import { attempt } from '../delivery/delivery.js';
import { jsonLine, printable } from './terminal.js';
import { systemClock } from '../base/clock.js';

/** `avawatch alerts`: the state alerts firing now, from the state file (works beside a running daemon). */
export async function alertsCommand(loaded: LoadedConfig, json: boolean): Promise<void> {
  const store = SqliteStore.open(loaded.config.state.path, { write: false }); // reads beside a running daemon
  try {
    const alerts = await firingAlerts(store);
    if (json) {
      for (const a of alerts) console.log(jsonLine(a));
      return;
    }
    if (alerts.length === 0) console.log('no alerts firing');
    for (const a of alerts) console.log(`${a.startsAt} ${a.severity.toUpperCase()} ${a.rule} ${printable(a.subject)}: ${printable(a.summary)}`);
  } finally {
    await store.close();
  }
}

/** `avawatch outbox`: notifications waiting, dead-lettered or sent. */
export async function outboxCommand(loaded: LoadedConfig, state: 'pending' | 'sent' | 'dead' | 'muted' | undefined, json: boolean): Promise<void> {
  const store = SqliteStore.open(loaded.config.state.path, { write: false }); // reads beside a running daemon
  try {
    // Errors are scrubbed before they are stored; again here for rows an older version wrote.
    const rows = (await store.outbox(state)).map((r) => ({ ...r, lastError: r.lastError === null ? null : scrub(r.lastError, loaded.secrets) }));
    if (json) {
      for (const r of rows) console.log(jsonLine(r));
      return;
    }
    if (rows.length === 0) console.log(`outbox: no ${state ?? ''} rows`.replace('  ', ' '));
    for (const r of rows) {
      const error = r.lastError ? `  last error: ${printable(r.lastError)}` : '';
      const digest = r.state === 'pending' && r.digestAt !== null ? ` (waits for the digest at ${new Date(r.digestAt).toISOString()})` : '';
      console.log(`#${r.id} ${r.state.padEnd(7)} ${r.receiver} attempts=${r.attempts} ${printable(r.summary)}${digest}${error}`);
    }
  } finally {
    await store.close();
  }
}

/** `avawatch notify-test RECEIVER`: one test message now, straight to the receiver; says what happened. */
export async function notifyTestCommand(loaded: LoadedConfig, name: string): Promise<boolean> {
  const receiver = loaded.config.receivers.find((r) => r.name === name);
  if (!receiver) {
    console.error(`no receiver named "${name}"; receivers: ${loaded.config.receivers.map((r) => r.name).join(', ') || '(none)'}`);
    return false;
  }
  const c = channel(receiver.type);
  const disabled = c.disabledReason(receiver);
  if (disabled) {
    console.error(`receiver "${name}" is disabled: ${disabled}`);
    return false;
  }
  const message: AlertMessage = {
    alertId: 0,
    rule: 'notify-test',
    kind: 'test',
    status: 'event',
    severity: 'info',
    subject: name,
    summary: `avawatch test message for receiver ${name}`,
    labels: { receiver: name },
    details: { Receiver: `${name} (${receiver.type})`, From: hostname() },
    at: new Date(systemClock.now()).toISOString(),
  };
  try {
    await attempt(c.create(receiver), [message], new AbortController().signal);
    console.log(`sent a test message to ${name} (${receiver.type})`);
    return true;
  } catch (err) {
    const e = err instanceof DeliveryError ? err : new DeliveryError(String(err), 'error', true);
    console.error(`${printable(scrub(e.message, loaded.secrets))} (${e.retryable ? 'temporary: would be retried' : 'permanent'}, reason ${e.reason})`);
    return false;
  }
}
