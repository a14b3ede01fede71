import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { composeApp } from '../../src/app/compose.js';
import { clockAt } from '../../src/base/clock.js';
import { loadConfig } from '../../src/config/load.js';
import { type NewAlert, SqliteStore } from '../../src/store/index.js';
import { writeProject, type TempProject } from '../helpers/harness.js';

// A restart after the host's wall clock stepped back while the last run was up: that run's
// steady times lie ahead of the new one's clock (docs/operations.md, "When the host's clock steps").

const HOUR = 3_600_000;
const T = Date.UTC(2026, 10, 28, 12);
const NODE = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const alert: NewAlert = { rule: 'my-validators', kind: 'validator-status', status: 'event', severity: 'info', subject: NODE, summary: `${NODE} changed`, labels: {}, details: {}, targets: [{ receiver: 'ops-slack', groupKey: 'g', groupWaitMs: 0, groupIntervalMs: 0 }] };

let project: TempProject | undefined;
afterEach(() => project?.cleanup());

/** The state file as the last run left it: a notification made an hour ahead of T, its retry due 5 s later. */
async function lastRun(statePath: string): Promise<void> {
  mkdirSync(dirname(statePath), { recursive: true });
  const store = SqliteStore.open(statePath);
  await store.commitEvaluation('my-validators', {}, [alert], T + HOUR);
  const [row] = await store.claimDue('ops-slack', T + HOUR, 10, 1_000);
  await store.markRetry(row!.id, T + HOUR + 5_000, 'HTTP 503', T + HOUR);
  await store.close();
}

const createdAt = (statePath: string) => {
  const db = new Database(statePath, { readonly: true });
  try {
    return db.prepare('SELECT (SELECT created_at FROM alerts) AS alert, (SELECT created_at FROM outbox) AS row').get();
  } finally {
    db.close();
  }
};

describe('a restart after the wall clock stepped back', () => {
  it("the daemon brings the last run's times back to its clock, saying so; `once` beside it moves nothing", async () => {
    project = writeProject({ dataUrl: 'http://127.0.0.1:9', nodeIds: [NODE] });
    await lastRun(project.statePath);
    const logs: string[] = [];
    const compose = () => composeApp(loadConfig(project!.configFile, {}), { logLevel: 'info', readable: false, clock: clockAt(() => T), write: (l) => logs.push(l) }).app;

    // As `once` builds it (never started): a daemon may be counting on these times.
    const once = compose();
    await once.stop();
    expect(createdAt(project.statePath)).toEqual({ alert: T + HOUR, row: T + HOUR });

    const daemon = compose();
    await daemon.start();
    await daemon.stop();
    expect(createdAt(project.statePath)).toEqual({ alert: T, row: T });
    expect(logs.join('')).toContain("the state file's times were 1h ahead of this host's clock");
  });
});
