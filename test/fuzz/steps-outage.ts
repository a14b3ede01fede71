import fc from 'fast-check';
import { Violation } from './checks.js';
import { poll, type Cmd, type Run } from './commands.js';
import type { Model } from './world.js';

// One outage, one message (issue 38): the Data API answering 5xx to every rule for a few polls
// is one "avawatch cannot see" alert and one resolution per receiver, never a "rule … is blind"
// per rule; an outage shorter than health.failingAfter says nothing.

/** health.failingAfter of the fuzzed daemon (the default). */
const FAILING_AFTER = 3;

/** The Data API (paths under /v1/) answers `status` for `polls` polls in a row, then as usual. */
export class Outage implements Cmd {
  constructor(
    readonly status: number,
    readonly polls: number,
  ) {}
  check = () => true;
  async run(model: Model, run: Run) {
    const step = this.toString();
    await poll(run, model, `${step} (settle)`, true);
    const from = lastAlert(run);
    run.d.service.set([{ kind: 'http', match: '^/v1/', status: this.status }]);
    try {
      for (let i = 1; i <= this.polls; i++) await poll(run, model, `${step} (down, poll ${i})`, false);
    } finally {
      run.d.service.clear();
    }
    await poll(run, model, `${step} (back)`, true);
    // What each receiver was sent (or holds to send) since: rule-failing rows, reminders aside.
    const said = sentSince(run, from).filter((a) => a.labels['alertname'] === 'rule-failing');
    const perRule = said.filter((a) => a.labels['source'] === undefined && a.labels['entity'] === undefined && a.summary.includes(`HTTP ${this.status}`));
    if (perRule.length > 0) throw new Violation(`${step}: the service's ${this.status} blinded rules one alert each: ${perRule.map((a) => a.summary).join(' | ')}`);
    const expected = this.polls >= FAILING_AFTER ? 1 : 0;
    const outage = said.filter((a) => a.labels['source'] === 'data-service');
    const receivers = new Set(outage.map((a) => a.receiver));
    if (expected === 1 && receivers.size === 0) throw new Violation(`${step}: ${this.polls} failed polls (failingAfter ${FAILING_AFTER}) and no receiver heard "avawatch cannot see"`);
    for (const receiver of receivers) {
      const own = outage.filter((a) => a.receiver === receiver);
      const fired = own.filter((a) => a.status === 'firing').length;
      const resolved = own.filter((a) => a.status === 'resolved').length;
      if (fired !== expected || resolved !== expected) {
        throw new Violation(`${step}: ${this.polls} failed polls (failingAfter ${FAILING_AFTER}) gave ${receiver} ${fired} "cannot see" and ${resolved} "sees again", not ${expected} of each: ${own.map((a) => `${a.status} ${a.summary}`).join(' | ')}`);
      }
    }
  }
  toString = () => `outage: the Data API answers ${this.status} for ${this.polls} polls`;
}

export const outageSteps: fc.Arbitrary<Cmd> = fc.tuple(fc.constantFrom(500, 502, 503), fc.constantFrom(1, 3, 4)).map(([s, n]) => new Outage(s, n));

function lastAlert(run: Run): number {
  return (run.d.db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM alerts').get() as { id: number }).id;
}

function sentSince(run: Run, from: number): Array<{ receiver: string; status: string; summary: string; labels: Record<string, string> }> {
  const rows = run.d.db.prepare('SELECT o.receiver, a.status, a.summary, a.labels FROM outbox o JOIN alerts a ON a.id = o.alert_id WHERE a.id > ? AND a.reminder = 0 ORDER BY a.id').all(from) as Array<{ receiver: string; status: string; summary: string; labels: string }>;
  return rows.map((r) => ({ ...r, labels: JSON.parse(r.labels) as Record<string, string> }));
}
