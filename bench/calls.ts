import { startSim } from '../src/sim/server.js';
import { benchLogger, BurstRecorder, counterSum, nodeId, ruleYaml, seedValidators, SIM_BUDGET, startApp, summarizeWarnings, waitUntil, writeProject, type BenchResult } from './lib.js';

const NODES = 1_000;
const RULES_PER_KIND = 10;
const PER_RULE = 100;
const EVERY_S = 10;
const STEADY_CYCLES = 3;

/**
 * Figure 1: API calls per poll cycle against the minimum (one per distinct node) for 1,000
 * nodes watched by 20 rules (10 validator-status + 10 validation-end, 100 nodes each, the
 * second set offset by 50 so each node is watched by two rules that are not "the same").
 */
export async function callsBench(): Promise<BenchResult> {
  const sim = await startSim({ budget: SIM_BUDGET });
  seedValidators(sim, NODES);
  const ids = Array.from({ length: NODES }, (_, i) => nodeId(i));
  const rules: string[] = [];
  for (let r = 0; r < RULES_PER_KIND; r++) {
    const status = ids.slice(r * PER_RULE, (r + 1) * PER_RULE);
    rules.push(ruleYaml({ name: `status-${r}`, kind: 'validator-status', every: `${EVERY_S}s`, nodeIds: status }));
    const offset = (r * PER_RULE + PER_RULE / 2) % NODES;
    const ending = Array.from({ length: PER_RULE }, (_, k) => ids[(offset + k) % NODES] as string);
    rules.push(ruleYaml({ name: `ending-${r}`, kind: 'validation-end', every: `${EVERY_S}s`, severity: 'warning', nodeIds: ending }));
  }
  const project = writeProject({ simUrl: sim.url, rules: rules.join('') });
  const logs = benchLogger();
  const { warnings } = logs;
  // Node's own warnings while the daemon runs (e.g. MaxListenersExceededWarning).
  const processWarnings: string[] = [];
  const onWarning = (w: Error) => processWarnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  const recorder = new BurstRecorder(sim, 2_000);
  const app = await startApp(project.configFile, logs);
  try {
    // The start run, then STEADY_CYCLES cycles on the wall clock's multiples of `every`.
    const bursts = await waitUntil(() => {
      const done = recorder.complete();
      return done.length >= STEADY_CYCLES + 1 && done;
    }, `${STEADY_CYCLES + 1} poll cycles`, (STEADY_CYCLES + 3) * EVERY_S * 1000, 100);
    recorder.stop();
    const evaluations = await counterSum(app, 'ruleEvaluations');
    const failures = await counterSum(app, 'ruleFailures');
    const deduplicated = await counterSum(app, 'apiDeduplicated');
    const cycles = bursts.slice(0, STEADY_CYCLES + 1).map((b, i) => {
      const requests = sim.requests.slice(b.from, b.to);
      return { label: i === 0 ? 'first (at start)' : `steady ${i}`, requests: requests.length, distinct: new Set(requests).size, ms: b.end - b.start };
    });
    // Against the distinct queries of the cycle: what sharing identical calls can reach.
    const ratio = (c: { requests: number; distinct: number }) => c.requests / Math.max(1, c.distinct);
    const steady = cycles.slice(1);
    const worstSteady = Math.max(...steady.map(ratio));
    const first = cycles[0]!;
    return {
      id: 'calls',
      title: 'API calls per poll cycle against the minimum',
      figures: [
        { name: 'Calls per cycle / distinct queries, steady state (1,000 nodes, 20 rules)', value: `${worstSteady.toFixed(2)} (${steady.map((c) => c.requests).join(', ')} calls for ${steady.map((c) => c.distinct).join(', ')} distinct)`, target: '1.00', pass: worstSteady <= 1.0 },
        { name: 'Calls per cycle / distinct queries, first cycle at start', value: `${ratio(first).toFixed(2)} (${first.requests} calls for ${first.distinct} distinct)`, target: '1.00', pass: ratio(first) <= 1.0 },
      ],
      details: [
        `Real App (\`src/app.ts\`) against the simulator: ${NODES.toLocaleString('en-US')} nodes, ${RULES_PER_KIND} validator-status and ${RULES_PER_KIND} validation-end rules of ${PER_RULE} nodes each, every ${EVERY_S}s (the validation-end rules offset by ${PER_RULE / 2} nodes: every node is watched by 2 rules, ${2 * NODES} rule-node pairs). Default \`api.dedupeWindow\` (5s); \`api.budget\` and the simulator's budget ${SIM_BUDGET.data.perMinute.toLocaleString('en-US')} CU/min, so nothing throttles.`,
        'A cycle is a burst of requests at the simulator (`sim.requests`) separated from the next by ≥ 2 s without one. Minimum: one call per distinct query. Each rule of 100 nodes asks 1 bulk list (active; no pending list since ACP-41); the offset rules ask other lists than the validator-status rules, so 20 distinct lists a cycle, where per-node lookups made 1,000 (see the fleet benchmark for rules that watch the same nodes).',
        '',
        '| cycle | calls | distinct URLs | calls / distinct | burst duration |',
        '|---|---|---|---|---|',
        ...cycles.map((c) => `| ${c.label} | ${c.requests} | ${c.distinct} | ${ratio(c).toFixed(2)} | ${c.ms} ms |`),
        '',
        `Rule evaluations: ${evaluations} (failed: ${failures}); GETs answered by another rule's identical request (\`avawatch_api_requests_deduplicated_total\`): ${deduplicated}.`,
        ...(warnings.length > 0 ? ['', `Daemon warnings: ${summarizeWarnings(warnings).join('; ')}`] : []),
        ...(processWarnings.length > 0 ? ['', `Process warnings while the daemon ran: ${summarizeWarnings(processWarnings).join('; ')}`] : []),
      ],
    };
  } finally {
    process.off('warning', onWarning);
    recorder.stop();
    await app.stop();
    await sim.close();
    project.cleanup();
  }
}
