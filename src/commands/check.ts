import type { LoadedConfig } from '../config/load.js';
import { notLoadedExamples } from '../config/load.js';
import { describeAccess } from '../base/listen.js';
import { describeSchedule } from '../base/schedule.js';
import { budgetLimits } from '../api/limiter.js';
import { channel } from '../channels/registry.js';
import { estimateBudget } from '../engine/estimate.js';
import { spreadsByEntity } from '../engine/parts.js';
import { ruleKind } from '../rules/registry.js';
import { groupsOf } from '../incidents/groups.js';

/**
 * `avawatch check`: the config summarised, its rules, receivers and the compute units they
 * would spend; never calls the network. False when the rules would spend more than the budget.
 */
export function checkCommand(all: LoadedConfig, loaded: LoadedConfig, shard: string | undefined): boolean {
  const { config } = loaded;
  console.log(`config ${loaded.file}: OK`);
  console.log(`rule files: ${loaded.ruleFiles.length}, rules: ${all.rules.length}${shard ? `, in shard ${shard}: ${loaded.rules.length}` : ''}`);
  for (const rule of loaded.rules) {
    const receivers = (rule.receivers ?? config.route.receivers).join(', ') || '(none)';
    const about = ruleKind(rule.kind).describe(rule.spec);
    console.log(`  ${rule.name}  ${rule.kind}  ${describeSchedule(rule.schedule)}  ${rule.severity}  ${about}  → ${receivers}`);
  }
  // What loads yet would watch nothing (a daemon says so only after a few reads).
  for (const rule of loaded.rules) for (const why of ruleKind(rule.kind).warnings?.(rule.spec) ?? []) console.log(`warning: rule ${rule.name}: ${why}`);
  const examples = notLoadedExamples(all);
  if (examples.length > 0) {
    console.log(`examples not loaded: ${examples.length} (placeholders: copy one, replace them, add it to ruleFiles)`);
    for (const e of examples) console.log(`  ${e.file}  ${e.placeholder}`);
  }
  console.log(`receivers: ${config.receivers.length}`);
  for (const r of config.receivers) {
    const reason = channel(r.type).disabledReason(r);
    console.log(`  ${r.name}  ${r.type}  ${reason ? `DISABLED (${reason})` : 'enabled'}`);
  }
  console.log(incidentsLine(loaded));
  console.log(`server: ${config.server.listen}  ${describeAccess(config.server)}`);
  const budget = estimateBudget(loaded.rules, { data: budgetLimits(config.api.budget), metrics: config.api.metricsBudget });
  const tier = typeof config.api.budget === 'string' ? ` (${config.api.budget})` : '';
  console.log(`compute units, estimated in steady state${budget.shared > 0 ? `; ${budget.shared} call(s) asked by several rules are made once` : ''}:`);
  for (const a of budget.apis) {
    const share = (n: number, of: number) => `${n.toLocaleString('en-US')} of ${of.toLocaleString('en-US')} (${Math.round((100 * n) / of)}%)`;
    const name = a.api === 'data' ? `data API${tier}` : 'metrics API';
    console.log(`  ${name}  per minute ${share(a.perMinute, a.limits.perMinute)}  per day ${share(a.perDay, a.limits.perDay)}${a.over ? '  OVER BUDGET' : ''}`);
  }
  if (budget.nodeCallsPerDay > 0) console.log(`  node APIs  ${budget.nodeCallsPerDay.toLocaleString('en-US')} calls a day to your own nodes, no compute units`);
  const spread = config.state.url === undefined ? [] : loaded.rules.filter(spreadsByEntity).map((r) => r.name);
  if (spread.length > 0) console.log(`  shared state: spread by entity over the daemons: ${spread.join(', ')}; each daemon holding some of a rule's entities makes its own share of its calls, up to one call a poll more per daemon`);
  for (const r of budget.rules) {
    const shared = r.sharedWith.length > 0 ? `, shared with ${r.sharedWith.join(', ')}` : '';
    console.log(`  ${r.rule}  ${Math.round(r.perDay).toLocaleString('en-US')}/day${shared}${r.more ? ` (${r.more})` : ''}`);
  }
  const over = budget.apis.filter((a) => a.over);
  if (over.length === 0) return true;
  const what = over.map((a) => `${a.api} API: ${a.perMinute.toLocaleString('en-US')} CU/min, ${a.perDay.toLocaleString('en-US')} CU/day against ${a.limits.perMinute.toLocaleString('en-US')}/min, ${a.limits.perDay.toLocaleString('en-US')}/day`);
  console.error(`avawatch: the rules would spend more compute units than the budget allows (${what.join('; ')}): poll less often, watch fewer entities, or set api.budget to your plan`);
  return false;
}

/** How the inventory's labels group validators into incidents (docs/incidents.md): what an operator checks before a host dies. */
function incidentsLine(loaded: LoadedConfig): string {
  const o = loaded.config.incidents;
  if (!o.enabled) return 'incidents: off (each validator judged alone)';
  const groups = groupsOf(loaded.inventory, o.groupBy);
  const shown = groups.slice(0, 6).map((g) => `${g.name}${g.network === 'mainnet' ? '' : `@${g.network}`} (${g.nodeIds.length})`);
  const more = groups.length > shown.length ? `, and ${groups.length - shown.length} more` : '';
  const baseline = loaded.rules.some((r) => ruleKind(r.kind).baselines !== undefined) ? 'network-wide from the baseline' : 'no network baseline rule: no network-wide verdict';
  return `incidents: ${groups.length === 0 ? `no group of two or more by ${o.groupBy.join(', ')}` : `${groups.length} group(s): ${shown.join(', ')}${more}`}; k ${o.k} within ${Math.round(o.window / 60_000)}m; ${baseline}; an alert that may join waits ${Math.round(o.wait / 1000)}s`;
}
