import fc from 'fast-check';
import type { AlertMessage } from '../../src/base/types.js';
import { notificationsOf, Violation } from './checks.js';
import { poll, type Cmd, type Run } from './commands.js';
import { watched, type Model } from './world.js';

// A series renamed under a node-metrics rule (as an AvalancheGo upgrade renames a metric): the
// rule must say it matches nothing within ABSENT_AFTER good reads, once, and resolve once the
// name is back. The rule is daemon.ts rulesYaml's `metrics`.

/** Good reads without a series after which the rule must have said so (the "a few reads"). */
const ABSENT_AFTER = 3;

export const METRICS_RULE = 'metrics';
export const WATCHED = 'avalanche_snowman_blks_processing';
const RENAMED = 'avalanche_snowman_blocks_processing';

/** A read a minute, as the rule's `every` would: reads within 5 s share one answer. */
const READ_EVERY_MS = 60_000;

/** One evaluation a minute later. */
async function read(run: Run, model: Model, step: string) {
  run.d.world.clock.advance(READ_EVERY_MS);
  model.nowMs += READ_EVERY_MS;
  return poll(run, model, step, true);
}

/** Polls at most, so that reads failed by another step's leftovers do not make it run forever. */
const MAX_POLLS = ABSENT_AFTER + 3;

export class SeriesRenamed implements Cmd {
  constructor(readonly node: string) {}
  check = (m: Model) => watched(m, this.node);
  async run(model: Model, run: Run) {
    const step = this.toString();
    const said = (alerts: AlertMessage[]) => alerts.filter((a) => a.rule === METRICS_RULE && a.labels['series'] === 'absent' && a.labels['node'] === this.node);
    run.d.world.nodes.set({ nodeId: this.node, renamed: { [WATCHED]: RENAMED } });
    const sent: AlertMessage[] = [];
    let good = 0;
    try {
      for (let i = 1; i <= MAX_POLLS && good < ABSENT_AFTER; i++) {
        const { alerts } = await read(run, model, `${step} #${i}`);
        // A read that failed is not "no series": it does not count.
        if (!run.d.app.failures.entities(METRICS_RULE).some((e) => e.entity === this.node)) good++;
        sent.push(...said(alerts));
        const early = sent.filter((a) => a.status === 'firing');
        if (good < ABSENT_AFTER && early.length > 0) throw new Violation(`${step}: said after ${good} good read(s), before ${ABSENT_AFTER}: ${notificationsOf(early).join(' | ')}`);
      }
    } finally {
      run.d.world.nodes.set({ nodeId: this.node, renamed: { [WATCHED]: null } });
    }
    if (good < ABSENT_AFTER) return; // the node's reads kept failing: nothing to judge
    const firing = sent.filter((a) => a.status === 'firing');
    if (firing.length !== 1) throw new Violation(`${step}: after ${ABSENT_AFTER} reads without a series the rule said ${firing.length} time(s) that it matches nothing: ${notificationsOf(sent).join(' | ') || 'silence'}`);
    for (let i = 1; i <= MAX_POLLS; i++) {
      const back = await read(run, model, `${step} (named again #${i})`);
      const resolved = said(back.alerts).filter((a) => a.status === 'resolved');
      if (resolved.length === 1) return;
      if (resolved.length > 1 || !run.d.app.failures.entities(METRICS_RULE).some((e) => e.entity === this.node)) {
        throw new Violation(`${step}: the series is back and the rule's "matches nothing" resolved ${resolved.length} time(s)`);
      }
    }
  }
  toString = () => `series ${WATCHED} renamed on ${this.node.slice(7, 12)}`;
}

/**
 * The nodes' expositions answer one line without a newline for a read, the watched name in it
 * every 50 characters (never at a line's start): the reader must stay linear (poll's `alive`
 * holds the event loop to under 1 s), and the line is no series.
 */
export class LongLine implements Cmd {
  constructor(readonly bytes: number) {}
  check = () => true;
  async run(model: Model, run: Run) {
    const step = this.toString();
    // Filled natively: a string of repeats would be a rope whose flattening (at the send) holds this process a second.
    const line = Buffer.alloc(1 + 50 * Math.floor(this.bytes / 50), ` ${WATCHED}{chain="P"} 1`.padEnd(50, ' '));
    line[0] = 0x78; // 'x': the name never at the line's start
    run.d.service.set([{ kind: 'http', match: '/ext/metrics$', status: 200, body: line }]);
    try {
      await read(run, model, `${step} (odd read)`);
    } finally {
      run.d.service.clear();
    }
    await read(run, model, `${step} (back to normal)`);
  }
  toString = () => `one ${this.bytes.toLocaleString('en-US')}-byte line at /ext/metrics`;
}

/** The family (a declaration, hoisted: commands.ts and this file import each other). */
export function metricsSteps(node: fc.Arbitrary<string>): fc.Arbitrary<Cmd> {
  return fc.oneof(
    node.map((n) => new SeriesRenamed(n)),
    fc.constantFrom(3_200_000, 32 * 1024 * 1024 - 64).map((b) => new LongLine(b)),
  );
}
