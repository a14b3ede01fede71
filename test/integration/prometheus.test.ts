import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioSchema } from '../../src/sim/scenario.js';
import { startDaemon, type Daemon } from '../helpers/daemon.js';
import { promtoolCheckMetrics, startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { freePort } from '../helpers/ports.js';

const RULES = join(import.meta.dirname, '../../rules');
// What the shipped example rules (rules/*.yaml) watch.
const N1 = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const N2 = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const SUBNET = '2Hm6eGyCNtJ5h5rGcS1DFRxNp1Mrx8FTRQRr2s5L3aFcmJzRqg';
const ADDR = '0xAbC0000000000000000000000000000000000001';

/** One gauge per rule kind: present once that kind's first evaluation is committed. */
const DOMAIN_GAUGES = [
  'avawatch_validator_status',
  'avawatch_validation_end_timestamp_seconds',
  'avawatch_delegations_active',
  'avawatch_l1_validator_balance_avax',
  'avawatch_chain_metric_value',
  'avawatch_icm_pending_messages',
  'avawatch_export_status',
  'avawatch_staking_active_transactions',
  'avawatch_subnet_is_l1',
  'avawatch_evm_address_newest_block',
  'avawatch_node_api_up',
  'avawatch_node_health_check_failing',
  'avawatch_node_version_info',
  'avawatch_node_metric_value',
];

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text exposition (comments skipped). */
function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1] as string] = l[2] as string;
    out.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return out;
}

describe('the /metrics exposition against promtool and a real Prometheus', () => {
  // The daemon (the simulator, the App with real SQLite and /metrics on real HTTP, a Slack
  // receiver) on the fixture's fake time (test/helpers/daemon.ts); Prometheus a real process
  // on the wall clock, started before the fake time on the port the daemon then listens on.
  let d: Daemon & { stop(): Promise<void> };
  let prom: RunningPrometheus;
  /** host:port the daemon's HTTP server binds. */
  let target: string;
  const scrape = async () => (await fetch(`http://${target}/metrics`)).text();
  // Every wait on what Prometheus has scraped goes through here. The daemon's fake time moves meanwhile, but
  // real wait: Prometheus scrapes every second of its own wall clock (its scrape_interval): paced steps let it pass.
  const scraped = <T>(check: () => Promise<T | undefined>, what: string): Promise<T> => d.until(check, what, { within: 6_000, pace: 50 });

  beforeAll(async () => {
    target = `127.0.0.1:${await freePort()}`;
    // Its first scrapes find nothing listening: up is 0 until the daemon is.
    prom = await startPrometheus({ targets: [target] });
    d = await startDaemon({
      logLevel: 'error',
      // A world in which every example rule has something to report.
      sim: {
        scenario: scenarioSchema.parse({
          world: {
            validations: [
              { nodeId: N1, txHash: 'p1', start: '-300d', end: '+2d', status: 'active' }, // validation-ending fires (3d)
              { nodeId: N2, txHash: 'p2', start: '+1d', end: '+180d', status: 'pending' },
            ],
            delegations: [{ txHash: 'd1', nodeId: N1, rewardAddresses: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'], amount: 25, start: '-10d', end: '+10d' }],
            l1Validators: [{ validationId: 'v1', nodeId: N1, subnetId: SUBNET, balance: 2, feePerSecond: 512 }],
            icmMessages: [{ messageId: '0xm1', from: ADDR, to: ADDR, sent: '-20m', status: 'pending' }],
            metrics: [{ chainId: 43114, metric: 'txCount', timeInterval: 'hour', value: 12000 }],
            stakingTransactions: [{ txHash: 's1', addresses: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'], nodeId: N1, amount: 25, start: '-1d', end: '+10d' }],
            subnets: [{ subnetId: SUBNET, owners: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'], isL1: true }],
            // The treasury of rules/address-activity.yaml received a deposit an hour ago.
            evmTransactions: [{ from: '0x4f1A2b3C4d5E6f708192a3B4c5D6e7F809a1B2c3', to: '0x7E2b5a0C4d1F93e8A6b0c2D47f1E9a3B5c8D0e6F', value: 250, at: '-1h' }],
            // alpha's own node (rules/node-health.yaml, rules/node-metrics.yaml), its disk nearly full.
            nodes: [{ nodeId: N1, diskAvailablePercent: 7 }],
          },
        }),
      },
      project: ({ dataUrl, webhookUrl, statePath }) => ({
        'avawatch.yaml': `api: {dataUrl: "${dataUrl}", metricsUrl: "${dataUrl}", retries: 0}
state: {path: "${statePath}"}
server: {listen: "${target}"}
route: {receivers: [ops]}
receivers:
  - {name: ops, type: slack, webhookUrl: "${webhookUrl}", minInterval: 10ms}
validators: [{name: alpha, nodeId: ${N1}, api: "${dataUrl}/node/${N1}"}, {name: beta, nodeId: ${N2}}]
ruleFiles: [${readdirSync(RULES).filter((f) => f.endsWith('.yaml')).map((f) => JSON.stringify(join(RULES, f))).join(', ')}]
`,
      }),
    });
    expect(new URL(d.app.url as string).host).toBe(target);
    // The first evaluation of every rule (each starts within its jitter, at most 5 s).
    const names = d.app.rules.map((r) => r.name);
    expect(names.length).toBeGreaterThanOrEqual(DOMAIN_GAUGES.length);
    await d.until(async () => {
      const samples = parseExposition(await scrape());
      const succeeded = new Set(samples.filter((s) => s.name === 'avawatch_rule_last_success_timestamp_seconds').map((s) => s.labels['rule']));
      return names.every((n) => succeeded.has(n)) && DOMAIN_GAUGES.every((g) => samples.some((s) => s.name === g));
    }, 'a committed evaluation of every example rule and its gauges');
  }, 60_000);

  afterAll(async () => {
    await d?.stop();
    await prom?.stop();
  });

  it('`promtool check metrics` finds nothing to report on a live /metrics', async () => {
    await d.slack.waitForPosts(1); // the notification counters are in the exposition too
    const exposition = await scrape();
    for (const g of [...DOMAIN_GAUGES, 'avawatch_alerts_firing', 'avawatch_notifications_total', 'avawatch_api_requests_total']) expect(exposition).toContain(`\n${g}{`);
    const checked = await promtoolCheckMetrics(exposition);
    expect(checked, `promtool check metrics said:\n${checked.output}`).toEqual({ code: 0, output: '' });
  });

  describe('scraped by a real Prometheus', () => {
    it('answers up{job="avawatch"} == 1 and a validator-status series with the value /metrics shows', async () => {
      // up is 1 once a scrape succeeded (a failed one would say why in the targets' lastError).
      const [up] = await scraped(async () => {
        const r = await prom.query('up{job="avawatch"}');
        return r[0]?.value[1] === '1' ? r : undefined;
      }, 'up{job="avawatch"} == 1').catch(async (err: Error) => {
        throw new Error(`${err.message}; targets: ${JSON.stringify(await prom.targets())}`);
      });
      expect(up?.metric).toEqual({ __name__: 'up', job: 'avawatch', instance: target });

      const selector = `avawatch_validator_status{job="avawatch",rule="my-validators",node_id="${N1}"}`;
      const [series] = await scraped(async () => {
        const r = await prom.query(selector);
        return r.length > 0 ? r : undefined;
      }, selector);
      const { __name__, job, instance, ...labels } = series!.metric;
      expect({ __name__, job, instance }).toEqual({ __name__: 'avawatch_validator_status', job: 'avawatch', instance: target });
      expect(labels).toEqual({ rule: 'my-validators', network: 'mainnet', node_id: N1, status: 'active' });

      // The same series, with the same value, in the daemon's own exposition.
      const direct = parseExposition(await scrape()).filter((s) => s.name === 'avawatch_validator_status' && s.labels['node_id'] === N1);
      expect(direct).toEqual([{ name: 'avawatch_validator_status', labels, value: Number(series!.value[1]) }]);

      // A timestamp gauge keeps its exact value through the scrape.
      const [end] = await prom.query(`avawatch_validator_end_timestamp_seconds{job="avawatch",rule="my-validators",node_id="${N1}"}`);
      const directEnd = parseExposition(await scrape()).find((s) => s.name === 'avawatch_validator_end_timestamp_seconds' && s.labels['node_id'] === N1);
      expect(Number(end?.value[1])).toBe(directEnd?.value);
      expect(directEnd?.value).toBeGreaterThan(d.sim.world.clock.now());

      // The other node is pending: a different status series.
      const pending = await prom.query(`avawatch_validator_status{job="avawatch",node_id="${N2}"}`);
      expect(pending.map((s) => s.metric['status'])).toEqual(['pending']);
    }, 60_000);
  });
});
