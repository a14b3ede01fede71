import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { App } from '../../src/app/app.js';
import { composeApp } from '../../src/app/compose.js';
import { loadConfig } from '../../src/config/load.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import type { World } from '../../src/sim/world.js';
import type { AlertMessage } from '../../src/base/types.js';
import { PROVIDERS, startProvider, PAGERDUTY_KEY, TELEGRAM_TOKEN, type Provider, type ProviderStandIn } from './receivers.js';
import { startHostileService, type HostileService } from './service.js';
import { initialFleet, inventoryYaml, teamRoutes, TEAMS, type Team } from './fleet.js';
import { rules40, seedWorld40 } from './world-40.js';
import { buildWorld, HELICON_S, initialModel, MIN_VERSION, NODE_FOR_MS, NODES, SIG_TX, SILENT_FOR_S, UPTIME_WARNING, HEALTH_OFF, type Model } from './world.js';

// The daemon under the fuzzer: the real App (its store, HTTP server, delivery workers and
// channels), in this process so its clock can be the simulator's, polled by the fuzzer
// instead of its scheduler (every rule is on a cron that never comes round).

export const API_KEY = 'gk-fuzz-4c1d9e7a2b5f8a3c6d0e9b1f7a4c2e8d';
export const HOOK_SECRET = 'whsec-fuzz-9a8b7c6d5e4f3a2b1c0d';
/** The receivers' own deadline; a provider that answers later has an unknown outcome. */
export const RECEIVER_TIMEOUT_MS = 300;
export const API_TIMEOUT_MS = 500;
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
export const DELIVERY = { backoffMaxMs: 60_000, maxAgeMs: 6 * 3600_000 };
/** The longest any notification may be made to wait for its next attempt (delivery.maxRetryAfter's default). */
export const DELIVERY_WAIT_CAP_MS = 10 * 60_000;
const NEVER = '0 0 1 1 *';

/** The fuzz node that validates an L1 (issue 39): it runs AvalancheGo 1.15.0 and the L1's plugin. */
export const L1_NODE = NODES[2] as string;
export const L1_CHAIN = '2tsLsNQUZfZnqDD9WBhTyj2XyMcmSGJHWTo7qFrVqzaiWvWbjN';
export const L1_SUBNET = '2hMMhMFfXKmLY1Dv9DZZ6yr9uEvh4TjfEsj3TtBKUhpMPTBGsB';
export const L1_VM = 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy';
/** The plugin's version as vmVersions lists it: protocol 46, the node's (compatible, quiet). */
export const L1_PLUGIN = 'v1.15.0';
export const L1_NODE_VERSION = 'avalanchego/1.15.0';

export interface Daemon {
  app: App;
  world: World;
  sim: SimServer;
  service: HostileService;
  providers: Record<Provider, ProviderStandIn>;
  /** Each team's own receiver (a webhook), where its validators' alerts go too. */
  teams: Record<Team, ProviderStandIn>;
  /** Where avawatch.yaml, rules.yaml and inventory.yaml are (reload steps edit them). */
  dir: string;
  statePath: string;
  /** The daemon's log lines. */
  logs: string[];
  /** Every alert the polls committed, in order. */
  notifications: AlertMessage[];
  db: Database.Database;
  secrets: string[];
  close(): Promise<void>;
}

export function rulesYaml(serviceUrl: string): string {
  const nodes = `[${NODES.join(', ')}]`;
  const urls = NODES.map((n) => `${n}: "${serviceUrl}/node/${n}"`).join(', ');
  // An expression whose cost follows a number from the chain (within the contract): cheap at
  // 12 delegators; at 300,000,000 a 300 MB string (it pads by the count below a billion, not
  // at all above), at 1e13 a runaway. Never true: any alert from it is a defect. One rule, so
  // one expression process a daemon (each costs a third of a second of CPU to start).
  const pad = "$length($pad('', (delegatorCount < 1000000000 ? delegatorCount : 0), '#')) < 0";
  const slow = '$count($spread([1..$min([delegatorCount, 30000])])) < 0 or $reduce([1..$min([delegatorCount, 5000000])], function($a, $b) { $a + $b }) < 0';
  const endpoint = (name: string, condition: string) => `
  - name: ${name}
    kind: endpoint
    schedule: "${NEVER}"
    severity: warning
    path: /v1/networks/mainnet/validators
    query: {validationStatus: active, nodeIds: "${NODES.join(',')}"}
    items: validators
    key: nodeId
    mode: condition
    expressionTimeout: 1s
    condition: ${JSON.stringify(condition)}`;
  return `rules:
  - {name: status, kind: validator-status, schedule: "${NEVER}", severity: critical, network: mainnet, nodeIds: ${nodes}}
  - {name: end, kind: validation-end, schedule: "${NEVER}", severity: warning, network: mainnet, nodeIds: ${nodes}}
  - name: health
    kind: validator-health
    schedule: "${NEVER}"
    severity: warning
    network: mainnet
    nodeIds: ${nodes}
    minVersion: ${MIN_VERSION}
    minDelegationCapacity: 1000
    uptime: {warning: ${UPTIME_WARNING}}
    rewardUptime: {heliconTime: "${new Date(HELICON_S * 1000).toISOString()}"}
  - {name: ${HEALTH_OFF}, kind: validator-health, schedule: "${NEVER}", severity: warning, network: mainnet, nodeIds: ${nodes}, uptime: false, rewardUptime: {heliconTime: "${new Date(HELICON_S * 1000).toISOString()}"}}
  - {name: blocks, kind: block-production, schedule: "${NEVER}", severity: warning, network: mainnet, nodeIds: ${nodes}, chains: [p-chain], silentFor: ${SILENT_FOR_S / 3600}h}
  - name: node
    kind: node-health
    schedule: "${NEVER}"
    severity: warning
    network: mainnet
    for: ${NODE_FOR_MS / 1000}s
    minPeers: false
    chains: [P] # the model has no bootstrapping to judge; each chain is one more call per node and poll
    urls: {${NODES.map((n) => `${n}: "${serviceUrl}/node/${n}"`).join(', ')}}
  - {name: metrics, kind: node-metrics, schedule: "${NEVER}", severity: warning, metric: avalanche_snowman_blks_processing, match: {chain: P}, above: 1000, urls: {${NODES.map((n) => `${n}: "${serviceUrl}/node/${n}"`).join(', ')}}}
  - {name: node-upgrade, kind: node-upgrade, schedule: "${NEVER}", severity: warning, warnBefore: 7d, criticalBefore: 1d, l1s: [{name: fuzz-l1, chain: ${L1_CHAIN}, vm: ${L1_VM}}], urls: {${urls}}}${nodeRules(urls)}${rules40(NEVER, urls, L1_NODE, L1_SUBNET)}
  - {name: sig, kind: signature-aggregator, schedule: "${NEVER}", severity: critical, network: mainnet, txHashes: [${SIG_TX}], failures: 1}${endpoint('expr', `${pad} or ${slow}`)}
`;
}

/**
 * rules/node-metrics.yaml's rules that AvalancheGo 1.15 exercises (issue 39), as shipped but
 * for the schedule and `urls` in place of `validators: all` (the fuzz inventory has no `api:`).
 * steps-node-115.ts holds them to their invariants; the SAE rules are three of five (cost).
 */
function nodeRules(urls: string): string {
  const rule = (name: string, severity: string, body: string) => `
  - {name: ${name}, kind: node-metrics, schedule: "${NEVER}", severity: ${severity}, urls: {${urls}}, ${body}}`;
  const disk = 'metric: avalanche_resource_tracker_disk_available_percentage, when: {metric: avalanche_resource_tracker_disk_available_space, above: 0}, for: 5m';
  const polls = 'metric: avalanche_snowman_polls_successful, ratioWith: avalanche_snowman_polls_failed, rate: 5m, minRate: 0.2, for: 5m';
  return [
    rule('node-disk-low', 'warning', `${disk}, below: 20`),
    rule('node-disk-critical', 'critical', `${disk}, below: 10`),
    rule('node-poll-success', 'warning', `${polls}, below: 0.95`),
    rule('node-poll-success-critical', 'critical', `${polls}, below: 0.90`),
    rule('node-bad-blocks', 'critical', 'metric: avalanche_evm_eth_chain_block_bad_count, match: {chain: C}, until: avalanche_evm_transition_sae_last_executed_height, rate: 10m, above: 0, for: 5m'),
    rule('node-l1-health', 'critical', `subnets: {${L1_NODE}: [${L1_SUBNET}]}, metric: avalanche_health_checks_failing, match: {check: health}, minus: avalanche_health_checks_failing, minusLabels: {tag: application}, above: 0, for: 2m`),
    rule('node-sae-queue-blocks', 'warning', 'metric: avalanche_evm_transition_sae_execution_queue_blocks, above: 20, optional: true, for: 5m'),
    rule('node-sae-settle-lag', 'critical', 'metric: avalanche_evm_transition_sae_last_executed_height, minus: avalanche_evm_transition_sae_last_settled_height, above: 100, optional: true, for: 5m'),
    rule('node-sae-gas-time-gap', 'warning', 'metric: avalanche_evm_transition_sae_gas_time_wall_time_gap_seconds, below: -30, optional: true, for: 5m'),
  ].join('');
}

function configYaml(serviceUrl: string, statePath: string, p: Record<Provider, ProviderStandIn>, teams: Record<Team, ProviderStandIn>): string {
  return `api:
  dataUrl: ${serviceUrl}
  metricsUrl: ${serviceUrl}
  apiKey: ${API_KEY}
  timeout: ${API_TIMEOUT_MS}ms
  connectTimeout: 500ms
  retries: 1
  retryBackoff: 10ms
  retryBackoffMax: 50ms
  maxRetryAfter: 1s
  maxResponseBytes: ${MAX_RESPONSE_BYTES}
  dedupeWindow: 0s
  budget: {perMinute: 1000000000000, perDay: 1000000000000000}
nodeApi: {timeout: ${API_TIMEOUT_MS}ms, connectTimeout: 500ms}
state: {path: ${statePath}}
server: {listen: "127.0.0.1:0"}
route:
  receivers: [slack, telegram, discord, pagerduty, webhook, alertmanager]
  repeatInterval: 0s
${teamRoutes('  ', 'slack, telegram, discord, pagerduty, webhook, alertmanager')}
delivery:
  backoff: 1s
  backoffMax: ${DELIVERY.backoffMaxMs / 1000}s
  maxAge: ${DELIVERY.maxAgeMs / 3600_000}h
receivers:
  - {name: slack, type: slack, webhookUrl: "${p.slack.url}", timeout: ${RECEIVER_TIMEOUT_MS}ms, minInterval: 0s}
  - {name: telegram, type: telegram, botToken: "${TELEGRAM_TOKEN}", chatId: "-1001234567890", apiUrl: "${p.telegram.url}", timeout: ${RECEIVER_TIMEOUT_MS}ms, minInterval: 0s}
  - {name: discord, type: discord, webhookUrl: "${p.discord.url}", timeout: ${RECEIVER_TIMEOUT_MS}ms, minInterval: 0s}
  - {name: pagerduty, type: pagerduty, routingKey: "${PAGERDUTY_KEY}", apiUrl: "${p.pagerduty.url}", timeout: ${RECEIVER_TIMEOUT_MS}ms, minInterval: 0s}
  - {name: webhook, type: webhook, url: "${p.webhook.url}", secret: "${HOOK_SECRET}", timeout: ${RECEIVER_TIMEOUT_MS}ms, minInterval: 0s}
  - {name: alertmanager, type: alertmanager, url: "${p.alertmanager.url}", resendInterval: 1m, timeout: ${RECEIVER_TIMEOUT_MS}ms}
${TEAMS.map((t) => `  - {name: team-${t}, type: webhook, url: "${teams[t].url}", secret: "${HOOK_SECRET}", timeout: ${RECEIVER_TIMEOUT_MS}ms, minInterval: 0s}`).join('\n')}
ruleFiles: [rules.yaml]
incidents: {enabled: false} # the fuzz model judges each validator alone
validatorsFile: inventory.yaml
`;
}

export async function startDaemon(logs: string[]): Promise<{ daemon: Daemon; model: Model }> {
  const model = initialModel();
  const world = buildWorld(model);
  world.nodes.set({ nodeId: L1_NODE, version: L1_NODE_VERSION, l1Chains: { [L1_CHAIN]: { subnetId: L1_SUBNET, vmId: L1_VM, vmVersion: L1_PLUGIN } } });
  seedWorld40(world, L1_SUBNET);
  // Polls come many times a real second on a clock that stands still: budgets are not what this tests.
  const unmetered = { perMinute: 1e12, perDay: 1e15 };
  const sim = await startSim({ world, budget: { data: unmetered, metrics: unmetered } });
  const service = await startHostileService(sim.url);
  const providers = Object.fromEntries(await Promise.all(PROVIDERS.map(async (p) => [p, await startProvider(p)] as const))) as Record<Provider, ProviderStandIn>;
  const teams = Object.fromEntries(await Promise.all(TEAMS.map(async (t) => [t, await startProvider('webhook')] as const))) as Record<Team, ProviderStandIn>;
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-fuzz-'));
  const statePath = join(dir, 'state.db');
  writeFileSync(join(dir, 'avawatch.yaml'), configYaml(service.url, statePath, providers, teams));
  writeFileSync(join(dir, 'inventory.yaml'), inventoryYaml(initialFleet()));
  writeFileSync(join(dir, 'rules.yaml'), rulesYaml(service.url));
  const loaded = loadConfig(join(dir, 'avawatch.yaml'), {});
  logs.length = 0;
  const { app } = composeApp(loaded, { logLevel: 'info', readable: false, clock: world.clock.asClock() });
  await app.start();
  const db = new Database(statePath, { readonly: true, fileMustExist: true });
  const secrets = [API_KEY, HOOK_SECRET, ...PROVIDERS.flatMap((p) => providers[p].secrets)];
  const daemon: Daemon = {
    app,
    world,
    sim,
    service,
    providers,
    teams,
    dir,
    statePath,
    logs,
    notifications: [],
    db,
    secrets,
    async close() {
      await app.stop();
      db.close();
      await Promise.all([sim.close(), service.close(), ...PROVIDERS.map((p) => providers[p].close()), ...TEAMS.map((t) => teams[t].close())]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return { daemon, model };
}

export interface OutboxRow {
  id: number;
  receiver: string;
  state: string;
  attempts: number;
  next_attempt_at: number;
  lease_until: number;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  digest_at: number | null;
}

export function outboxRows(d: Daemon): OutboxRow[] {
  return d.db.prepare('SELECT id, receiver, state, attempts, next_attempt_at, lease_until, last_error, created_at, updated_at, digest_at FROM outbox ORDER BY id').all() as OutboxRow[];
}

/** How often settleDelivery looks (real ms). */
const SETTLE_LOOK_MS = 25;

/**
 * Lets delivery run until it is quiet: no attempt under way, nothing changing, every
 * provider's count steady (real time; at most `maxMs`: a cap, reached only on a busy machine).
 * Nothing due and nothing under way is quiet at once (a worker has nothing left to take);
 * due rows that stay put belong to a paused receiver: 200 ms without change says so.
 */
export async function settleDelivery(d: Daemon, maxMs = 10_000): Promise<void> {
  d.app.delivery.kick();
  const start = Date.now();
  let last = '';
  let steadyFrom = start;
  while (Date.now() - start < maxMs) {
    const now = d.world.clock.nowMs();
    const rows = outboxRows(d);
    // An attempt under way holds its row's lease until it ends: wait for it.
    const sending = rows.some((r) => r.state === 'pending' && r.lease_until > now);
    const due = rows.some((r) => r.state === 'pending' && r.next_attempt_at <= now);
    const mark = JSON.stringify([rows.map((r) => [r.state, r.attempts, r.next_attempt_at]), PROVIDERS.map((p) => d.providers[p].received.length)]);
    if (mark !== last) steadyFrom = Date.now();
    last = mark;
    if (!sending && (!due || Date.now() - steadyFrom >= 200)) return;
    // real wait: the fuzzer's App runs on real timers (its clock is the simulator's, moved by the steps); delivery's attempts are real I/O.
    await new Promise((r) => setTimeout(r, SETTLE_LOOK_MS));
  }
}
