import { buildingSlot, tipMs } from './proposervm.js';

// A simulated node's /ext/metrics: the Prometheus text exposition of avalanchego 1.14/1.15's own
// metric names (docs/node-api-source.md), from the node's state, with the scenario's
// `metrics` overrides on top (a series given exactly replaces it; any other is added), and
// `renamed` families exported under another name (as an AvalancheGo upgrade renames one).

/** The part of a simulated node (node.ts SimNode) its exposition reads. */
export interface NodeMetricsState {
  diskAvailablePercent: number;
  bootstrapped: Record<string, boolean>;
  peers: number;
  rewardingStake: number;
  weightedAverage: number;
  /** false: not a validator (the uptime gauges read 0). */
  validator?: boolean;
  metrics: Record<string, number>;
  /** Metric name → the name it is exported under (an upgrade renamed it). */
  renamed?: Record<string, string>;
  /** Simulated ms the node was declared: its counters grow from there. */
  startedAt: number;
  /** false: --api-health-enabled=false (no diskspace check to set the disk gauges; no upgrade gauge). */
  healthApi?: boolean;
  /** The C-Chain's VM: Coreth, or SAE in the transition VM after Helicon. */
  cChain?: 'coreth' | 'switched' | 'restarted';
  /** The L1 chains whose plugin runs: blockchain ID and VM ID. */
  loadedL1?: Array<{ id: string; vmId: string; frozenSince?: number | undefined }>;
}

interface Family {
  help: string;
  type: 'gauge' | 'counter' | 'untyped';
  /** Label text (`{chain="P"}` or '') → value. */
  samples: Map<string, number>;
}

const CHAINS = ['C', 'P', 'X'] as const;
const DISK_BYTES = 2_000_000_000_000;
/** The Primary Network's validators, as a mainnet node counts them. */
const MAINNET_VALIDATORS = 1_400;
/**
 * constants.VMName (utils/constants/vm_ids.go): the names of the VM IDs built into the node;
 * any other VM's namespace is its ID. Subnet-EVM's usual VM ID is the built-in SubnetEVMID.
 */
const VM_NAMES: Record<string, string> = {
  srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy: 'subnetevm',
  mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6: 'evm',
  v3m4wPxaHpvGr8qfMeyK6PRW3idZrPHmYcMTt7oXdK47yurVH: 'xsvm',
};
/** An L1's validators. */
const L1_VALIDATORS = 8;

/** `name{b="2",a="1"}` → its name and its labels sorted (`{a="1",b="2"}`); undefined when it is not a series. */
export function parseSeries(text: string): { name: string; labels: string } | undefined {
  const m = /^\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?:\{(.*)\})?\s*$/.exec(text);
  if (!m) return undefined;
  const body = (m[2] ?? '').trim();
  const pairs: string[] = [];
  const re = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(,|$)/gy;
  let at = 0;
  while (at < body.length) {
    re.lastIndex = at;
    const p = re.exec(body);
    if (!p) return undefined;
    pairs.push(`${p[1]}="${p[2]}"`);
    at = re.lastIndex;
  }
  pairs.sort();
  return { name: m[1] as string, labels: pairs.length === 0 ? '' : `{${pairs.join(',')}}` };
}

/** Prometheus' text for a value: integers plainly, +Inf/-Inf/NaN spelled out. */
function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  return String(v);
}

/** The failing-check gauges of each health worker, by tag (node-checks.ts failingGauges). */
export type FailingGauges = Record<'health' | 'readiness' | 'liveness', Map<string, number>>;

export function renderNodeMetrics(node: NodeMetricsState, failing: FailingGauges, nowMs: number): string {
  const families = new Map<string, Family>();
  const add = (name: string, type: Family['type'], help: string, labels: string, value: number): void => {
    const family = families.get(name) ?? { help, type, samples: new Map<string, number>() };
    family.samples.set(labels, value);
    families.set(name, family);
  };
  const up = Math.max(0, (nowMs - node.startedAt) / 1000);
  const healthApi = node.healthApi !== false;

  // Set only by the diskspace check's DiskTracker calls (node.go, resource_tracker.go): 0 without it.
  const diskPercent = healthApi ? node.diskAvailablePercent : 0;
  add('avalanche_resource_tracker_disk_available_percentage', 'gauge', 'Percentage of database volume available', '', diskPercent);
  add('avalanche_resource_tracker_disk_available_space', 'gauge', 'Available space remaining (bytes) on the database volume', '', Math.floor((DISK_BYTES * diskPercent) / 100));
  for (const [worker, byTag] of Object.entries(failing)) {
    for (const [tag, count] of byTag) add('avalanche_health_checks_failing', 'gauge', 'number of currently failing health checks', `{check="${worker}",tag="${tag}"}`, count);
  }
  add('avalanche_network_peers', 'gauge', 'Number of network peers', '', node.peers);
  // network.go sets the zero UptimeResult when the node validates nothing (errNotValidator).
  const validator = node.validator !== false;
  add('avalanche_network_node_uptime_rewarding_stake', 'gauge', 'The percentage of total stake which thinks this node is eligible for rewards', '', validator ? node.rewardingStake : 0);
  add('avalanche_network_node_uptime_weighted_average', 'gauge', "This node's uptime average weighted by observing peer stakes", '', validator ? node.weightedAverage : 0);
  // Registered by initHealthAPI after its early return: absent with the health API off.
  if (healthApi) add('avalanche_upgrade_time_until', 'gauge', 'Time until an upcoming network upgrade (ns). +Inf means the upgrade is unscheduled.', '', Infinity);
  const l1 = node.loadedL1 ?? [];
  for (const chain of [...CHAINS, ...l1.map((c) => c.id)]) {
    const l = `{chain="${chain}"}`;
    const live = node.bootstrapped[chain] !== false;
    add('avalanche_stake_percent_connected', 'gauge', 'Percent of connected stake', l, node.peers === 0 ? 0 : 0.98);
    add('avalanche_stake_num_validators', 'gauge', 'Total number of validators', l, chain.length === 1 ? MAINNET_VALIDATORS : L1_VALIDATORS);
    add('avalanche_snowman_blks_processing', 'gauge', 'number of currently processing blocks', l, 0);
    add('avalanche_snowman_blks_accepted_count', 'counter', 'Total # of observations of time (in ns) from the issuance of a block to its acceptance', l, live ? Math.floor(up / 2) : 0);
    add('avalanche_snowman_blks_rejected_count', 'counter', 'Total # of observations of time (in ns) from the issuance of a block to its rejection', l, 0);
    add('avalanche_snowman_polls_successful', 'counter', 'number of successful polls', l, live ? Math.floor(up * 10) : 0);
    add('avalanche_snowman_polls_failed', 'counter', 'number of failed polls', l, 0);
    add('avalanche_benchlist_benched_num', 'gauge', 'Number of currently benched validators', l, 0);
    add('avalanche_benchlist_benched_weight', 'gauge', 'Weight of currently benched validators', l, 0);
  }
  // Coreth's go-ethereum counter chain/block/bad/count, registered as "eth" on the C-Chain's VM
  // gatherer (graft/coreth/plugin/evm/vm.go): kept (frozen) after an in-process switch to SAE, gone after a restart.
  if (node.cChain !== 'restarted') add('avalanche_evm_eth_chain_block_bad_count', 'counter', '', '{chain="C"}', 0);
  if (node.cChain === 'switched' || node.cChain === 'restarted') addSae(add, up, nowMs);
  // A plugin VM: chains/manager.go getOrMakeVMGatherer names its namespace by constants.VMName
  // (subnetevm for Subnet-EVM's usual ID, else the VM ID), vm_server.go registers the plugin's metrics as "vm", Subnet-EVM its chain's as "eth".
  for (const c of l1) add(`avalanche_${VM_NAMES[c.vmId] ?? c.vmId}_vm_eth_chain_block_bad_count`, 'counter', '', `{chain="${c.id}"}`, 0);
  // The proposervm's gatherer (chains/manager.go proposervmNamespace, vm.go): the slot of this
  // node's next turn from the tip (climbing while the tip is frozen), and the tip's accept time.
  for (const c of l1) {
    add('avalanche_proposervm_block_building_slot', 'gauge', 'the slot that this node may attempt to build a block', `{chain="${c.id}"}`, buildingSlot(c.frozenSince, nowMs));
    const tipS = Math.floor(tipMs(c.frozenSince, nowMs) / 1000);
    for (const type of ['inner', 'proposervm']) add('avalanche_proposervm_last_accepted_timestamp', 'gauge', 'timestamp of the last block accepted', `{block_type="${type}",chain="${c.id}"}`, tipS);
  }
  for (const [text, value] of Object.entries(node.metrics)) {
    const series = parseSeries(text);
    if (!series) continue;
    const family = families.get(series.name);
    if (family) family.samples.set(series.labels, value);
    else add(series.name, 'untyped', 'set by the scenario', series.labels, value);
  }

  const lines: string[] = [];
  for (const name of [...families.keys()].sort()) {
    const f = families.get(name) as Family;
    const shown = node.renamed?.[name] ?? name;
    lines.push(`# HELP ${shown} ${f.help}`, `# TYPE ${shown} ${f.type}`);
    for (const [labels, value] of [...f.samples].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) lines.push(`${shown}${labels} ${formatValue(value)}`);
  }
  return `${lines.join('\n')}\n`;
}

type Add = (name: string, type: Family['type'], help: string, labels: string, value: number) => void;

/**
 * The C-Chain after Helicon (v1.15.0-fuji): SAE inside the transition VM, whose post-switch
 * chain registers its gatherer as "transition" (vms/transitionvm/vm.go), SAE its own as "sae"
 * (vms/saevm/sae/vm.go, saexec/metrics.go, sae/metrics.go) and the C-Chain's as "cchain".
 * The histograms (execution_queue_duration_seconds, execute_block_duration_seconds) are not served.
 */
function addSae(add: Add, up: number, nowMs: number): void {
  const sae = (name: string, type: Family['type'], help: string, value: number) => add(`avalanche_evm_transition_sae_${name}`, type, help, '{chain="C"}', value);
  const executed = Math.floor(up / 2);
  sae('last_executed_height', 'gauge', 'Height of the latest block that completed async execution.', executed);
  sae('last_settled_height', 'gauge', 'Height of the latest block that has settled.', Math.max(0, executed - 2));
  sae('execution_queue_blocks', 'gauge', 'Number of accepted blocks that have not yet completed execution.', 0);
  sae('execution_queue_gas_limit', 'gauge', 'Sum of the gas limits of accepted blocks that have not yet completed execution.', 0);
  sae('last_executed_gas_time_seconds', 'gauge', 'Gas time reached by the latest executed block, as a Unix timestamp.', Math.floor(nowMs / 1000));
  sae('gas_time_wall_time_gap_seconds', 'gauge', 'Gas time minus wall time, observed when the latest block finished executing; negative when gas time lags the wall clock.', -0.25);
  sae('gas_target', 'gauge', 'ACP-176 gas target in force as of the latest enqueued block.', 1_000_000);
  sae('in_memory_blocks', 'gauge', 'Number of SAE blocks still live in memory (created but not yet garbage collected).', 4);
  sae('executed_gas_charged_total', 'counter', 'Cumulative gas charged by executed blocks (transaction gas used plus end-of-block operation gas); this is not the eth gas used.', executed * 1_000_000);
  sae('executed_gas_limit_total', 'counter', 'Cumulative gas limit (worst-case gas) of executed blocks.', executed * 15_000_000);
  sae('accepted_gas_limit_total', 'counter', 'Cumulative gas limit (worst-case gas) of blocks accepted into the execution queue.', executed * 15_000_000);
  add('avalanche_evm_transition_cchain_min_block_delay_seconds', 'gauge', 'ACP-226 minimum block delay, in seconds.', '{chain="C"}', 1);
}
