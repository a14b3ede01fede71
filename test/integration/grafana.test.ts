import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleKinds } from '../../src/rules/registry.js';
import { applyChange, worldChange } from '../../src/sim/scenario.js';
import { startDaemon, type Daemon } from '../helpers/daemon.js';

// docs/grafana/avawatch.json may only query metrics the daemon really exposes: a renamed or
// misspelt metric would leave a panel silently empty.

const ROOT = join(import.meta.dirname, '../..');
const DASHBOARD = join(ROOT, 'docs/grafana/avawatch.json');
const RULES = join(ROOT, 'rules');

const N1 = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const N2 = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const SUBNET = '2Hm6eGyCNtJ5h5rGcS1DFRxNp1Mrx8FTRQRr2s5L3aFcmJzRqg';
const ADDR = '0xAbC0000000000000000000000000000000000001';
const L1_CHAIN = '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5';
const SUBNET_EVM = 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy';
/** Mainnet's next upgrade a month ahead of the daemon's clock: node-upgrade's countdown has one to count to. */
const nextUpgrade = () => `networks: { mainnet: { upgrades: { helicon: ${new Date(Date.now() + 30 * 86_400_000).toISOString().replace(/\.\d{3}/, '')} } } }\n`;

/** Metric names in PromQL: ours and prom-client's process metrics. */
const METRIC_NAME = /\b(?:avawatch|process|nodejs)_[a-z0-9_]+/g;

interface Panel {
  id?: number;
  type: string;
  title?: string;
  datasource?: { type?: string; uid?: string };
  targets?: Array<{ expr?: string; datasource?: { uid?: string } }>;
  panels?: Panel[];
}
interface Dashboard {
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query?: unknown; definition?: string; datasource?: { uid?: string } }> };
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;

/** Every panel, including those inside (collapsed) rows. */
function allPanels(panels: readonly Panel[]): Panel[] {
  return panels.flatMap((p) => [p, ...allPanels(p.panels ?? [])]);
}

/** Every PromQL expression: panel targets and template variable queries. */
function expressions(d: Dashboard): string[] {
  const exprs = allPanels(d.panels).flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ''));
  for (const v of d.templating.list) {
    if (v.type !== 'query') continue;
    if (typeof v.query === 'string') exprs.push(v.query);
    else if (v.query && typeof v.query === 'object' && 'query' in v.query) exprs.push(String(v.query.query));
    if (v.definition) exprs.push(v.definition);
  }
  return exprs.filter((e) => e.trim() !== '');
}

/** Family name: a histogram's or summary's _bucket/_sum/_count series belong to it. */
const family = (name: string) => name.replace(/_(bucket|sum|count)$/, '');

function metricNames(exprs: readonly string[]): string[] {
  return [...new Set(exprs.flatMap((e) => e.match(METRIC_NAME) ?? []).map(family))].sort();
}

/** Families with at least one sample in a Prometheus text exposition, and those only declared (# TYPE). */
function exposition(text: string): { sampled: Set<string>; declared: Set<string> } {
  const sampled = new Set<string>();
  const declared = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) /.exec(line);
    if (type?.[1]) declared.add(type[1]);
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (sample?.[1]) sampled.add(family(sample[1]));
  }
  return { sampled, declared };
}

const used = metricNames(expressions(dashboard));

describe('the Grafana dashboard (docs/grafana/avawatch.json)', () => {
  it('is a dashboard over a Prometheus data source variable, with a rule variable', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const ds = dashboard.templating.list.find((v) => v.name === 'DS_PROMETHEUS');
    expect(ds).toMatchObject({ type: 'datasource', query: 'prometheus' });
    const rule = dashboard.templating.list.find((v) => v.name === 'rule');
    expect(rule?.definition).toBe('label_values(avawatch_rule_evaluations_total, rule)');
    const panels = allPanels(dashboard.panels);
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of panels.filter((x) => x.type !== 'row')) {
      expect(p.datasource?.uid, `panel "${p.title}"`).toBe('${DS_PROMETHEUS}');
      expect(p.targets?.length, `panel "${p.title}" has queries`).toBeGreaterThan(0);
      for (const t of p.targets ?? []) expect(t.datasource?.uid ?? '${DS_PROMETHEUS}', `panel "${p.title}"`).toBe('${DS_PROMETHEUS}');
    }
  });

  it('has a panel for every gauge of every rule kind', () => {
    const gauges = Object.values(ruleKinds).flatMap((k) => k.gauges.map((g) => g.name));
    expect(gauges.length).toBeGreaterThan(0);
    expect(gauges.filter((g) => !used.includes(g))).toEqual([]);
  });

  describe('against the running daemon', () => {
    // The daemon as `avawatch run` composes it (src/commands/run.ts: composeApp, the same
    // registry and /metrics), in this process on the fixture's fake time (test/helpers/daemon.ts):
    // the simulator, a Slack receiver, real SQLite and the exposition over real HTTP.
    let d: Daemon & { stop(): Promise<void> };

    beforeAll(async () => {
      d = await startDaemon({
        project: ({ dataUrl, webhookUrl, statePath }) => ({
          'avawatch.yaml': `api: {dataUrl: "${dataUrl}", metricsUrl: "${dataUrl}", retries: 1, retryBackoff: 10ms}
state: {path: "${statePath}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [ops-slack]}
receivers: [{name: ops-slack, type: slack, webhookUrl: "${webhookUrl}", minInterval: 10ms}]
delivery: {backoff: 100ms, backoffMax: 500ms}
validators: [{name: alpha, nodeId: ${N1}, api: "${dataUrl}/node/${N1}", subnets: [${SUBNET}]}, {name: beta, nodeId: ${N2}}]
${nextUpgrade()}ruleFiles: [rules/*.yaml]
`,
          // Every example rule, as shipped, polled every second instead of every few minutes: the
          // L1 runway needs two reads, and the test must not wait for a 10m interval.
          ...Object.fromEntries(
            readdirSync(RULES)
              .filter((f) => f.endsWith('.yaml'))
              .map((file) => {
                const text = readFileSync(join(RULES, file), 'utf8');
                // As an operator would once the placeholders are replaced: a glob loads it then.
                const fast = text
                  .replace(/^(\s*every:\s*)\S+/gm, '$11s')
                  .replace(/^placeholder:.*\n/m, '')
                  // node-upgrade's L1 chains, as an operator fills in the commented example.
                  .replace(/^(\s*)# (l1s:).*\n\s*#\s*- \{ name: my-l1, chain: \S+, vm: myl1vm \}.*$/m, `$1$2 [{ name: my-l1, chain: ${L1_CHAIN}, vm: ${SUBNET_EVM} }]`);
                expect(fast, `${file} sets every:`).not.toBe(text);
                return [`rules/${file}`, fast];
              }),
          ),
        }),
        before: ({ sim, slack }) => {
          // A world in which every example rule has something to report: gauges are exported
          // only for what the rules have seen.
          const change = worldChange.parse({
            validations: [
              { nodeId: N1, txHash: 'p1', start: '-300d', end: '+2d', status: 'active' }, // validation-end fires (3d)
              // beta renews (ACP-236): the P-Chain API (alpha's own node) gives its cycle.
              { nodeId: N2, txHash: 'p2', start: '-10d', end: '+20d', status: 'active', autoRenew: { nextPeriod: '30d' } },
            ],
            delegations: [{ txHash: 'd1', nodeId: N1, rewardAddresses: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'], amount: 25, start: '-10d', end: '+10d' }],
            l1Validators: [{ validationId: 'v1', nodeId: N1, subnetId: SUBNET, balance: 100, feePerSecond: 512 }],
            icmMessages: [{ messageId: '0xm1', from: ADDR, to: ADDR, sent: '-20m', status: 'pending' }],
            metrics: [{ chainId: 43114, metric: 'txCount', timeInterval: 'hour', value: 12000 }],
            exports: { completeAfterPolls: 1, outcome: 'COMPLETED' },
            stakingTransactions: [{ txHash: 's1', addresses: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'], nodeId: N1, amount: 25, start: '-1d', end: '+10d' }],
            subnets: [{ subnetId: SUBNET, owners: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'], blockchains: [{ blockchainId: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5', name: 'dexalot', evmChainId: 432204 }] }],
            // rules/block-production.yaml's node proposes; rules/address-activity.yaml's treasury was paid.
            proposedBlocks: [{ nodeId: N1, chain: 'c-chain', times: ['-10m'] }],
            evmTransactions: [{ txHash: '0x0a11', from: '0x4f1A2b3C4d5E6f708192a3B4c5D6e7F809a1B2c3', to: '0x7E2b5a0C4d1F93e8A6b0c2D47f1E9a3B5c8D0e6F', value: '2500', at: '-1h' }],
            // alpha's own node (rules/node-health.yaml, rules/node-metrics.yaml): its disk nearly full, so a check fails; its build schedules an upgrade to come.
            // It runs an L1's Subnet-EVM plugin (rules/node-upgrade.yaml's l1s, filled in below).
            nodes: [{ nodeId: N1, diskAvailablePercent: 7, upgrades: { nextUpgradeTime: new Date(sim.world.clock.nowMs() + 30 * 86_400_000).toISOString() }, l1Chains: { [L1_CHAIN]: { subnetId: SUBNET, vmId: SUBNET_EVM } } }],
          });
          applyChange(sim.world, change, sim.world.clock.nowMs());
          // One failed evaluation (a try and its one retry) for the failure counters.
          sim.world.faults.push({ status: 500, pathIncludes: '/icm/' }, { status: 500, pathIncludes: '/icm/' });
          // One failed delivery attempt (retried, then delivered) for the delivery counters.
          slack.failNext({ status: 503, body: 'service_unavailable' });
        },
      });
    });

    afterAll(async () => {
      await d?.stop();
    });

    it('every metric the dashboard queries has samples on /metrics once the rules have run', async () => {
      expect(used.length).toBeGreaterThan(20);
      const scrape = async () => exposition(await (await fetch(`${d.app.url}/metrics`)).text());
      // Labelled metrics appear once there is data: after the first evaluations, deliveries
      // and failures. Wait for all of them, then say which never came.
      let last = await scrape();
      try {
        await d.until(async () => {
          last = await scrape();
          return used.every((m) => last.sampled.has(m));
        }, 'every dashboard metric on /metrics', { within: 15_000 });
      } catch {
        // reported below, with the names
      }
      const missing = used.filter((m) => !last.sampled.has(m));
      expect(
        missing.map((m) => (last.declared.has(m) ? `${m} (declared, no samples)` : m)),
        `metrics used by docs/grafana/avawatch.json but not exposed by the daemon\n--- daemon log ---\n${d.logs.join('').slice(-4000)}`,
      ).toEqual([]);
    }, 30_000);
  });
});
