import { firingAlerts } from '../alerts/view.js';
import { formatElapsed } from '../base/duration.js';
import type { GaugeSample } from '../base/types.js';
import type { LoadedConfig } from '../config/load.js';
import { FailureCounts } from '../engine/failing.js';
import { ruleKind } from '../rules/registry.js';
import { whenText } from '../status/format.js';
import { standingOf, validatorRows, type ValidatorRow } from '../status/validators.js';
import { openConfiguredStore } from '../app/compose.js';
import { jsonLine, printable } from './terminal.js';
import { systemClock } from '../base/clock.js';

// `avawatch validators`: each validator as the last evaluations left it, the figures the status
// page's tiles show (the same rows, made from the rules' gauges over the state file's states):
// its status, uptime, end, how long it can still be down and be paid, its auto-renew cycle.

/** The rows, from the state file (read beside a running daemon); `now` in ms. */
export async function validatorsView(loaded: LoadedConfig, now = systemClock.now()): Promise<ValidatorRow[]> {
  const store = await openConfiguredStore(loaded, { write: false });
  try {
    const samples = new Map<string, GaugeSample[]>();
    const byRule = new Map<string, Map<string, unknown>>();
    for (const rule of loaded.rules) {
      const kind = ruleKind(rule.kind);
      const states = new Map<string, unknown>();
      // Parsed as the engine parses them: a row an older version wrote, or a broken one, is left out.
      for (const { entity, state } of (await store.stateRows(rule.name)).rows) {
        const parsed = kind.state.safeParse(JSON.parse(state));
        if (parsed.success) states.set(entity, parsed.data);
      }
      byRule.set(rule.name, states);
      for (const s of kind.samples(rule.spec, states, new Date(now))) {
        const list = samples.get(s.metric) ?? [];
        list.push({ ...s, labels: { rule: rule.name, ...s.labels } });
        samples.set(s.metric, list);
      }
    }
    return await validatorRows({ samples: (metric) => samples.get(metric) ?? [], rules: loaded.rules, failures: new FailureCounts(), alerts: await firingAlerts(store), inventory: loaded.inventory, history: undefined, historySince: 0, ruleStates: (name) => byRule.get(name) });
  } finally {
    await store.close();
  }
}

/** What `avawatch validators` prints: a paragraph per validator, or one JSON object a line. */
export async function validatorsCommand(loaded: LoadedConfig, json: boolean, now = systemClock.now()): Promise<string[]> {
  const nowS = now / 1000;
  const rows = await validatorsView(loaded, now);
  if (json) {
    return rows.map((v) => {
      const s = standingOf(v, nowS);
      return jsonLine({
        name: v.name ?? null,
        nodeId: v.nodeId,
        network: v.network,
        status: v.status ?? null,
        uptimePercent: v.uptimePercent ?? null,
        end: v.end === undefined ? null : new Date(v.end * 1000).toISOString(),
        downtimeBudgetSeconds: v.budget?.seconds ?? null,
        budgetView: v.budget?.view ?? null,
        requirementPercent: v.requirement ?? null,
        cycleEnd: v.cycleEnd === undefined ? null : new Date(v.cycleEnd * 1000).toISOString(),
        nextPeriodSeconds: v.nextPeriod ?? null,
        delegationClosed: s.closed ?? null,
        firing: v.verdict.firing,
        rules: v.rules,
      });
    });
  }
  if (rows.length === 0) return ['no validators: declare yours under validators: in the config (or run avawatch init --node NodeID-…)'];
  // The status and version are the service's and the node's text: inert on a terminal.
  return rows.flatMap((v) => paragraph(v, nowS)).map(printable);
}

function paragraph(v: ValidatorRow, nowS: number): string[] {
  const s = standingOf(v, nowS);
  const who = v.name === undefined ? v.nodeId : `${v.name} (${v.nodeId})`;
  const facts = [
    v.status ?? 'status not known yet',
    v.uptimePercent === undefined ? undefined : `uptime ${Number(v.uptimePercent.toFixed(2))}%`,
    v.end === undefined ? undefined : `ends ${at(v.end, nowS)}`,
    v.version,
  ].filter((f) => f !== undefined);
  const verdict = v.verdict.firing > 0 ? `${v.verdict.firing} firing` : v.verdict.unlisted ? 'not listed' : v.verdict.ended ? 'not validating' : v.verdict.watched ? 'OK' : 'not watched';
  const lines = [`${who} ${v.network}: ${verdict}; ${facts.join(', ')}`];
  const b = s.budget;
  if (b) lines.push(`  ${b.lost ? b.text : `can be down ${b.text} more and still be paid`}${b.needed ? ` (${b.needed})` : ''}`);
  if (s.cycle) lines.push(`  auto-renewed, cycle ends ${at(s.cycle.end, nowS)}${s.cycle.then}`);
  if (s.closed) lines.push(`  closed to new delegations: ${s.closed}`);
  return lines;
}

/** "2026-12-16 00:00 UTC (in 18d)". */
function at(unixS: number, nowS: number): string {
  const diff = (unixS - nowS) * 1000;
  return `${whenText(unixS)} (${Math.abs(diff) < 1000 ? 'now' : diff < 0 ? `${formatElapsed(-diff)} ago` : `in ${formatElapsed(diff)}`})`;
}
