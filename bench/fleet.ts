import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { computeUnits } from '../src/api/catalog.js';
import { budgetLimits, TIERS } from '../src/api/limiter.js';
import { estimateBudget, type BudgetEstimate } from '../src/engine/estimate.js';
import { loadConfig, type LoadedConfig } from '../src/config/load.js';
import { ruleKind } from '../src/rules/registry.js';
import { startSim, type SimServer } from '../src/sim/server.js';
import { benchLogger, BurstRecorder, counterSum, nodeId, ruleYaml, seedValidators, SIM_BUDGET, sleep, startApp, summarizeWarnings, writeProject, type BenchResult, type Figure } from './lib.js';

// A fleet of 1,000 watched nodes and a node set with 2,000 delegations: compute units per
// cycle as the service meters them, the no-key budget they would take at 60 s, and how
// close `avawatch check`'s estimate is. Each figure is shown next to the same figure
// measured before the bulk reads (bench/baseline-per-node.json).

const NODES = 1_000;
const EVERY_S = 10;
/** The interval the budget share is projected to. */
const PROJECTED_EVERY_S = 60;
const STEADY_CYCLES = 3;
const DELEGATION_NODES = 100;
const DELEGATIONS_PER_NODE = 20;
/** A cycle is a burst of requests separated from the next by this long without one. */
const GAP_MS = 2_000;
const DAY_S = 86_400;

const NO_KEY = TIERS.unauthenticated;
/** The floor: one 20 CU page of active periods per 100 nodes (no pending list since ACP-41; it was 0.40 with it). */
const TARGET_CU_PER_NODE = 0.2;
const TARGET_DAY_SHARE = 0.24;
const RATIO_LOW = 0.9;
const RATIO_HIGH = 1.1;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BASELINE_FILE = join(ROOT, 'bench', 'baseline-per-node.json');
/** Set to a path: the run also writes its figures there, as a baseline file (the "before" column). */
const BASELINE_OUT = process.env['FLEET_BASELINE_OUT'];

interface Cycle {
  label: string;
  calls: number;
  cu: number;
  /** Requests that carried a pageToken (a list's later pages). */
  laterPages: number;
  /** Calls per endpoint, e.g. "1000 × validators/{nodeId}". */
  endpoints: string;
  ms: number;
}

interface Run {
  cycles: Cycle[];
  steady: Cycle[];
  loaded: LoadedConfig;
  estimate: BudgetEstimate;
  evaluations: number;
  failures: number;
  deduplicated: number;
  warnings: string[];
}

const cycleRecord = z.object({ label: z.string(), calls: z.number(), cu: z.number() });
const part = z.object({
  /** What the code did then, e.g. "per-node lookups". */
  label: z.string(),
  cycles: z.array(cycleRecord),
  callsPerCycle: z.number(),
  cuPerCycle: z.number(),
  cuPerCycleWorst: z.number(),
  estimatePerDay: z.number(),
  measuredPerDay: z.number(),
  ratio: z.number(),
});
const baselineSchema = z.object({
  about: z.string(),
  commit: z.string(),
  measuredAt: z.string(),
  validators: part.extend({ nodes: z.number(), everyS: z.number(), cuPerNodePerCycle: z.number(), dayShareAt60s: z.number(), minuteShareAt60s: z.number() }),
  delegations: part.extend({ nodes: z.number(), delegations: z.number(), batches: z.number() }),
});
type Baseline = z.infer<typeof baselineSchema>;
type Part = z.infer<typeof part>;

export async function fleetBench(): Promise<BenchResult> {
  const before = readBaseline();
  const validators = await validatorRun();
  const delegations = await delegationRun();

  // ---- 1-3: validators
  const v = summarize(validators);
  const cuPerNode = v.cuWorst / NODES;
  const dayShare = (v.cuMean * (DAY_S / PROJECTED_EVERY_S)) / NO_KEY.perDay;
  const minuteShare = (v.cuWorst * (60 / PROJECTED_EVERY_S)) / NO_KEY.perMinute;
  const vEstimate = dataPerDay(validators.estimate);
  const vMeasuredDay = v.cuMean * (DAY_S / EVERY_S);
  const vRatio = vEstimate / vMeasuredDay;
  const at60 = estimateAt60();

  // ---- 4: delegations
  const d = summarize(delegations);
  const delegationRule = delegations.loaded.rules[0];
  const batches = delegationRule ? ruleKind(delegationRule.kind).cost(delegationRule.spec as never).calls.length : NaN;
  const dEstimate = dataPerDay(delegations.estimate);
  const dMeasuredDay = d.cuMean * (DAY_S / EVERY_S);
  const dRatio = dEstimate / dMeasuredDay;

  const now: Baseline = {
    about:
      'Figures of bench/fleet.ts measured before validator-status/validation-end read validators in bulk and delegation-end read delegators incrementally: the "before" column of BENCHMARKS.md. Made by `FLEET_BASELINE_OUT=bench/baseline-per-node.json npm run bench -- fleet` at that commit.',
    commit: commitAt(),
    measuredAt: new Date().toISOString(),
    validators: {
      label: 'per-node lookups',
      nodes: NODES,
      everyS: EVERY_S,
      cycles: validators.cycles.map((c) => ({ label: c.label, calls: c.calls, cu: c.cu })),
      callsPerCycle: v.callsWorst,
      cuPerCycle: v.cuMean,
      cuPerCycleWorst: v.cuWorst,
      cuPerNodePerCycle: cuPerNode,
      dayShareAt60s: dayShare,
      minuteShareAt60s: minuteShare,
      estimatePerDay: vEstimate,
      measuredPerDay: vMeasuredDay,
      ratio: vRatio,
    },
    delegations: {
      label: 'whole active lists',
      nodes: DELEGATION_NODES,
      delegations: DELEGATION_NODES * DELEGATIONS_PER_NODE,
      batches,
      cycles: delegations.cycles.map((c) => ({ label: c.label, calls: c.calls, cu: c.cu })),
      callsPerCycle: d.callsWorst,
      cuPerCycle: d.cuMean,
      cuPerCycleWorst: d.cuWorst,
      estimatePerDay: dEstimate,
      measuredPerDay: dMeasuredDay,
      ratio: dRatio,
    },
  };
  if (BASELINE_OUT) writeFileSync(resolve(BASELINE_OUT), `${JSON.stringify(now, null, 2)}\n`);

  const b = before.baseline;
  const was = <P extends Part>(p: P | undefined, text: (p: P) => string) => (p ? ` (${p.label}: ${text(p)})` : '');
  const bv = b?.validators;
  const bd = b?.delegations;
  const missing = (run: Run) => (run.steady.length < STEADY_CYCLES ? ` — only ${run.steady.length} of ${STEADY_CYCLES} steady cycles recorded` : '');
  const ok = (run: Run, pass: boolean) => run.steady.length >= STEADY_CYCLES && pass;
  const inRange = (r: number) => r >= RATIO_LOW && r <= RATIO_HIGH;
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const n = (x: number) => Math.round(x).toLocaleString('en-US');

  const figures: Figure[] = [
    {
      name: `Compute units per watched node per cycle, steady state (${n(NODES)} nodes, 1 validator-status + 1 validation-end rule)`,
      value: `${cuPerNode.toFixed(2)}${was(bv, (p) => p.cuPerNodePerCycle.toFixed(2))}${missing(validators)}`,
      target: `≤ ${TARGET_CU_PER_NODE.toFixed(2)}`,
      pass: ok(validators, cuPerNode <= TARGET_CU_PER_NODE),
    },
    {
      name: `API calls per cycle, steady state (${n(NODES)} nodes, 2 rules)`,
      value: `${v.callsWorst}${was(bv, (p) => String(p.callsPerCycle))}`,
    },
    {
      name: `No-key daily budget (${n(NO_KEY.perDay)} CU) taken by ${n(NODES)} nodes every ${PROJECTED_EVERY_S} s (measured CU per cycle × ${DAY_S / PROJECTED_EVERY_S})`,
      value: `${pct(dayShare)}${was(bv, (p) => pct(p.dayShareAt60s))}${missing(validators)}`,
      target: `≤ ${pct(TARGET_DAY_SHARE)}`,
      pass: ok(validators, dayShare <= TARGET_DAY_SHARE),
    },
    {
      name: `No-key per-minute limit (${n(NO_KEY.perMinute)} CU) taken by ${n(NODES)} nodes every ${PROJECTED_EVERY_S} s (worst steady cycle)`,
      value: `${pct(minuteShare)} (${n(v.cuWorst * (60 / PROJECTED_EVERY_S))} CU/min)${was(bv, (p) => pct(p.minuteShareAt60s))}`,
    },
    {
      name: `\`avawatch check\` estimate / measured CU per day, ${n(NODES)} nodes, 2 rules every ${EVERY_S} s`,
      value: `${vRatio.toFixed(2)} (${n(vEstimate)} / ${n(vMeasuredDay)})${was(bv, (p) => p.ratio.toFixed(2))}${missing(validators)}`,
      target: `${RATIO_LOW.toFixed(2)}–${RATIO_HIGH.toFixed(2)}`,
      pass: ok(validators, inRange(vRatio)),
    },
    {
      name: `Delegation-end: API calls per cycle, steady state (${DELEGATION_NODES} nodes, ${n(DELEGATION_NODES * DELEGATIONS_PER_NODE)} active delegations)`,
      value: `${d.callsWorst}${was(bd, (p) => String(p.callsPerCycle))}${missing(delegations)}`,
      target: `≤ ${2 * batches} (2 × ${batches} nodeIds batch${batches === 1 ? '' : 'es'})`,
      pass: ok(delegations, d.callsWorst <= 2 * batches),
    },
    {
      name: `Delegation-end: compute units per cycle, steady state`,
      value: `${n(d.cuMean)}${was(bd, (p) => n(p.cuPerCycle))}`,
    },
    {
      name: `Delegation-end: \`avawatch check\` estimate / measured CU per day (every ${EVERY_S} s)`,
      value: `${dRatio.toFixed(2)} (${n(dEstimate)} / ${n(dMeasuredDay)})${was(bd, (p) => p.ratio.toFixed(2))}${missing(delegations)}`,
      target: `${RATIO_LOW.toFixed(2)}–${RATIO_HIGH.toFixed(2)}`,
      pass: ok(delegations, inRange(dRatio)),
    },
  ];

  const beforeHead = (p: Part | undefined) => (b && p ? `${p.label} (before, ${b.commit})` : 'before');
  const beforeCycle = (p: Part | undefined, i: number) => p?.cycles[i];
  const vRow = (c: Cycle, i: number) => {
    const old = beforeCycle(bv, i);
    return `| ${c.label} | ${c.calls} | ${n(c.cu)} | ${(c.cu / NODES).toFixed(2)} | ${c.endpoints} | ${c.laterPages} | ${c.ms} ms | ${old ? `${old.calls} calls, ${(old.cu / NODES).toFixed(2)} CU/node` : '—'} |`;
  };
  const dRow = (c: Cycle, i: number) => {
    const old = beforeCycle(bd, i);
    return `| ${c.label} | ${c.calls} | ${n(c.cu)} | ${c.endpoints} | ${c.laterPages} | ${c.ms} ms | ${old ? `${old.calls} calls, ${n(old.cu)} CU` : '—'} |`;
  };
  const perRule = (e: BudgetEstimate) => e.rules.map((r) => `${r.rule} ${n(r.perDay)}/day`).join(', ');
  const warnings = [...validators.warnings, ...delegations.warnings];

  return {
    id: 'fleet',
    title: 'Compute units for a fleet: 1,000 watched nodes, 2,000 delegations',
    figures,
    details: [
      `Real App (\`src/app.ts\`) against the simulator, two runs. **Validators**: ${n(NODES)} nodes with one active period each, watched by one validator-status and one validation-end rule on the same ${n(NODES)} nodes, every ${EVERY_S}s. **Delegations**: ${DELEGATION_NODES} nodes holding ${n(DELEGATION_NODES * DELEGATIONS_PER_NODE)} active delegations (${DELEGATIONS_PER_NODE} each, start times an hour apart, ends 30–330 days away), watched by one delegation-end rule, every ${EVERY_S}s; its nodeIds batches (${batches}) are the calls of the kind's own cost (\`ruleKind('delegation-end').cost(spec)\`). Default \`api.pageSize\` (100), \`api.maxPages\` and \`api.dedupeWindow\` (5s); \`api.budget\` and the simulator's budget ${n(SIM_BUDGET.data.perMinute)} CU/min, so nothing throttles. Each run starts just after a multiple of ${EVERY_S}s, then records the first cycle (the baseline, not counted) and ${STEADY_CYCLES} steady ones. Compute units are \`computeUnits(method, path)\` of \`src/api/catalog.ts\` for each request the simulator served (\`sim.requests\`); the no-key limits are \`TIERS.unauthenticated\` of \`src/api/limiter.ts\` (${n(NO_KEY.perMinute)} CU/min, ${n(NO_KEY.perDay)} CU/day). The budget share at ${PROJECTED_EVERY_S} s is the mean steady CU per cycle × ${DAY_S / PROJECTED_EVERY_S} cycles a day (per minute: the worst steady cycle). The estimate is \`estimateBudget\` (\`src/engine/estimate.ts\`, what \`avawatch check\` prints) on the same config and rule file loaded by \`loadConfig\`, against the mean steady CU per cycle × ${DAY_S / EVERY_S} cycles a day. The "before" column is \`bench/baseline-per-node.json\`${b ? `, measured at ${b.commit} on ${b.measuredAt.slice(0, 10)}` : ''}.`,
      `A cycle is a burst of requests at the simulator separated from the next by ≥ ${GAP_MS / 1000} s without one. *Later pages*: requests with a \`pageToken\`. Endpoints are shown below \`/v1/networks/{network}/\`.${before.note ? ` ${before.note}` : ''}`,
      '',
      `| validators: cycle | calls | CU | CU / node | calls by endpoint | later pages | burst | ${beforeHead(bv)} |`,
      '|---|---|---|---|---|---|---|---|',
      ...validators.cycles.map(vRow),
      '',
      `Steady: ${v.callsWorst} calls and ${n(v.cuWorst)} CU in the worst cycle (mean ${n(v.cuMean)} CU). \`check\` at ${EVERY_S} s: ${n(vEstimate)} CU/day (${perRule(validators.estimate)}, before sharing; ${validators.estimate.shared} call(s) shared); at ${PROJECTED_EVERY_S} s: ${n(at60.perDay)} CU/day = ${pct(at60.perDay / NO_KEY.perDay)} of the no-key day, against ${n(v.cuMean * (DAY_S / PROJECTED_EVERY_S))} CU/day projected from the measurement. Rule evaluations: ${validators.evaluations} (failed: ${validators.failures}); GETs answered by another rule's identical request: ${validators.deduplicated}.`,
      '',
      `| delegations: cycle | calls | CU | calls by endpoint | later pages | burst | ${beforeHead(bd)} |`,
      '|---|---|---|---|---|---|---|',
      ...delegations.cycles.map(dRow),
      '',
      `Steady: ${d.callsWorst} calls and ${n(d.cuWorst)} CU in the worst cycle (mean ${n(d.cuMean)} CU); target ≤ 2 calls per nodeIds batch. \`check\` at ${EVERY_S} s: ${n(dEstimate)} CU/day (${perRule(delegations.estimate)}). Rule evaluations: ${delegations.evaluations} (failed: ${delegations.failures}).`,
      ...(warnings.length > 0 ? ['', `Daemon warnings: ${summarizeWarnings(warnings).join('; ')}`] : []),
    ],
  };
}

/** 1,000 nodes, one validator-status and one validation-end rule on all of them. */
async function validatorRun(): Promise<Run> {
  const ids = Array.from({ length: NODES }, (_, i) => nodeId(i));
  return measure(
    (sim) => seedValidators(sim, NODES),
    ruleYaml({ name: 'fleet-status', kind: 'validator-status', every: `${EVERY_S}s`, nodeIds: ids }) +
      ruleYaml({ name: 'fleet-ending', kind: 'validation-end', every: `${EVERY_S}s`, severity: 'warning', nodeIds: ids }),
  );
}

/** 100 nodes with 20 active delegations each, one delegation-end rule on the 100 nodes. */
async function delegationRun(): Promise<Run> {
  const ids = Array.from({ length: DELEGATION_NODES }, (_, i) => nodeId(i));
  const seed = (sim: SimServer) => {
    const now = Math.floor(sim.world.clock.now());
    for (let i = 0; i < DELEGATION_NODES; i++) {
      for (let k = 0; k < DELEGATIONS_PER_NODE; k++) {
        const j = i * DELEGATIONS_PER_NODE + k;
        sim.world.addDelegation(
          'mainnet',
          {
            txHash: `BenchDel${String(j).padStart(10, '0')}`,
            nodeId: ids[i] as string,
            rewardAddresses: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'],
            amountDelegated: `${25 + (j % 500)}000000000`,
            // Interleaved across nodes: newest first is not node by node.
            startTimestamp: now - 86_400 - ((j * 7919) % (DELEGATION_NODES * DELEGATIONS_PER_NODE)) * 3_600,
            endTimestamp: now + (30 + (j % 300)) * 86_400,
          },
          'active',
        );
      }
    }
  };
  return measure(seed, ruleYaml({ name: 'fleet-delegations', kind: 'delegation-end', every: `${EVERY_S}s`, nodeIds: ids }));
}

async function measure(seed: (sim: SimServer) => void, rules: string): Promise<Run> {
  const sim = await startSim({ budget: SIM_BUDGET });
  seed(sim);
  const project = writeProject({ simUrl: sim.url, rules });
  const logs = benchLogger();
  const { warnings } = logs;
  try {
    // As `avawatch check` does: the config and its rule files through the loader, then the estimate.
    const loaded = loadConfig(project.configFile, {});
    const estimate = estimateBudget(loaded.rules, { data: budgetLimits(loaded.config.api.budget), metrics: loaded.config.api.metricsBudget });
    // Start just after a tick, so the first cycle has the whole interval to itself.
    const period = EVERY_S * 1000;
    await sleep(period - (Date.now() % period) + 300);
    const recorder = new BurstRecorder(sim, GAP_MS);
    const app = await startApp(project.configFile, logs);
    try {
      const want = STEADY_CYCLES + 1;
      const end = Date.now() + (STEADY_CYCLES + 3) * period;
      while (recorder.complete().length < want && Date.now() < end) await sleep(100);
      recorder.stop();
      const cycles = recorder
        .complete()
        .slice(0, want)
        .map((b, i) => ({ ...tally(sim.requests.slice(b.from, b.to)), label: i === 0 ? 'first (baseline)' : `steady ${i}`, ms: b.end - b.start }));
      return {
        cycles,
        steady: cycles.slice(1),
        loaded,
        estimate,
        evaluations: await counterSum(app, 'ruleEvaluations'),
        failures: await counterSum(app, 'ruleFailures'),
        deduplicated: await counterSum(app, 'apiDeduplicated'),
        warnings,
      };
    } finally {
      recorder.stop();
      await app.stop();
    }
  } finally {
    await sim.close();
    project.cleanup();
  }
}

/** Calls, compute units, later pages and calls per endpoint of one cycle's requests ("GET /path?query"). */
function tally(requests: readonly string[]): Omit<Cycle, 'label' | 'ms'> {
  let cu = 0;
  let laterPages = 0;
  const byEndpoint = new Map<string, number>();
  for (const r of requests) {
    const [method = 'GET', target = ''] = r.split(' ', 2);
    const url = new URL(target, 'http://sim');
    cu += computeUnits(method, url.pathname).cu;
    if (url.searchParams.has('pageToken')) laterPages++;
    const status = url.searchParams.get('validationStatus') ?? url.searchParams.get('delegationStatus');
    const endpoint = `${url.pathname.replace(/^\/v1\/networks\/[^/]+\//, '').replace(/NodeID-[^/]+/g, '{nodeId}')}${status ? `?…${status}` : ''}`;
    byEndpoint.set(endpoint, (byEndpoint.get(endpoint) ?? 0) + 1);
  }
  const endpoints = [...byEndpoint].sort((a, b) => b[1] - a[1]).map(([e, k]) => `${k} × ${e}`).join(', ');
  return { calls: requests.length, cu, laterPages, endpoints: endpoints || '—' };
}

function summarize(run: Run): { callsWorst: number; cuWorst: number; cuMean: number } {
  const steady = run.steady;
  if (steady.length === 0) return { callsWorst: NaN, cuWorst: NaN, cuMean: NaN };
  return {
    callsWorst: Math.max(...steady.map((c) => c.calls)),
    cuWorst: Math.max(...steady.map((c) => c.cu)),
    cuMean: steady.reduce((sum, c) => sum + c.cu, 0) / steady.length,
  };
}

function dataPerDay(e: BudgetEstimate): number {
  return e.apis.find((a) => a.api === 'data')?.perDay ?? NaN;
}

/** `check`'s estimate for the same two rules at the projected interval (loaded, not run). */
function estimateAt60(): { perDay: number } {
  const ids = Array.from({ length: NODES }, (_, i) => nodeId(i));
  const project = writeProject({
    simUrl: 'http://127.0.0.1:9',
    rules:
      ruleYaml({ name: 'fleet-status', kind: 'validator-status', every: `${PROJECTED_EVERY_S}s`, nodeIds: ids }) +
      ruleYaml({ name: 'fleet-ending', kind: 'validation-end', every: `${PROJECTED_EVERY_S}s`, severity: 'warning', nodeIds: ids }),
  });
  try {
    const loaded = loadConfig(project.configFile, {});
    return { perDay: dataPerDay(estimateBudget(loaded.rules, { data: NO_KEY, metrics: loaded.config.api.metricsBudget })) };
  } finally {
    project.cleanup();
  }
}

function readBaseline(): { baseline?: Baseline; note?: string } {
  if (!existsSync(BASELINE_FILE)) return { note: 'No `bench/baseline-per-node.json`: no "before" figures.' };
  try {
    return { baseline: baselineSchema.parse(JSON.parse(readFileSync(BASELINE_FILE, 'utf8'))) };
  } catch (err) {
    return { note: `\`bench/baseline-per-node.json\` unreadable (${err instanceof Error ? err.message.split('\n')[0] : String(err)}): no "before" figures.` };
  }
}

/** The commit measured (short), and whether src/ had uncommitted changes. */
function commitAt(): string {
  try {
    const sha = execSync('git rev-parse --short HEAD', { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    const dirty = execSync('git status --porcelain -- src', { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() !== '';
    return `${sha}${dirty ? ' (with uncommitted changes in src/)' : ''}`;
  } catch {
    return 'unknown';
  }
}
