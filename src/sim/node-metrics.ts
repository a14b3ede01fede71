// A simulated node's /ext/metrics: the Prometheus text exposition of avalanchego 1.14's own
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
  metrics: Record<string, number>;
  /** Metric name → the name it is exported under (an upgrade renamed it). */
  renamed?: Record<string, string>;
  /** Simulated ms the node was declared: its counters grow from there. */
  startedAt: number;
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

export function renderNodeMetrics(node: NodeMetricsState, failingChecks: number, nowMs: number): string {
  const families = new Map<string, Family>();
  const add = (name: string, type: Family['type'], help: string, labels: string, value: number): void => {
    const family = families.get(name) ?? { help, type, samples: new Map<string, number>() };
    family.samples.set(labels, value);
    families.set(name, family);
  };
  const up = Math.max(0, (nowMs - node.startedAt) / 1000);
  const notBootstrapped = Object.values(node.bootstrapped).some((b) => !b) ? 1 : 0;

  add('avalanche_resource_tracker_disk_available_percentage', 'gauge', 'Percentage of database volume available', '', node.diskAvailablePercent);
  add('avalanche_resource_tracker_disk_available_space', 'gauge', 'Available space remaining (bytes) on the database volume', '', Math.floor((DISK_BYTES * node.diskAvailablePercent) / 100));
  for (const check of ['health', 'liveness', 'readiness']) {
    const failing = check === 'health' ? failingChecks : check === 'readiness' ? notBootstrapped : 0;
    for (const tag of ['all', 'application']) {
      add('avalanche_health_checks_failing', 'gauge', 'number of currently failing health checks', `{check="${check}",tag="${tag}"}`, failing);
    }
  }
  add('avalanche_network_peers', 'gauge', 'Number of network peers', '', node.peers);
  add('avalanche_network_node_uptime_rewarding_stake', 'gauge', 'The percentage of total stake which thinks this node is eligible for rewards', '', node.rewardingStake);
  add('avalanche_network_node_uptime_weighted_average', 'gauge', "This node's uptime average weighted by observing peer stakes", '', node.weightedAverage);
  add('avalanche_upgrade_time_until', 'gauge', 'Time until an upcoming network upgrade (ns). +Inf means the upgrade is unscheduled.', '', Infinity);
  for (const chain of CHAINS) {
    const l = `{chain="${chain}"}`;
    const live = node.bootstrapped[chain] !== false;
    add('avalanche_stake_percent_connected', 'gauge', 'Percent of connected stake', l, node.peers === 0 ? 0 : 0.98);
    add('avalanche_stake_num_validators', 'gauge', 'Total number of validators', l, MAINNET_VALIDATORS);
    add('avalanche_snowman_blks_processing', 'gauge', 'number of currently processing blocks', l, 0);
    add('avalanche_snowman_blks_accepted_count', 'counter', 'Total # of observations of time (in ns) from the issuance of a block to its acceptance', l, live ? Math.floor(up / 2) : 0);
    add('avalanche_snowman_blks_rejected_count', 'counter', 'Total # of observations of time (in ns) from the issuance of a block to its rejection', l, 0);
    add('avalanche_snowman_polls_successful', 'counter', 'number of successful polls', l, live ? Math.floor(up * 10) : 0);
    add('avalanche_snowman_polls_failed', 'counter', 'number of failed polls', l, 0);
    add('avalanche_benchlist_benched_num', 'gauge', 'Number of currently benched validators', l, 0);
    add('avalanche_benchlist_benched_weight', 'gauge', 'Weight of currently benched validators', l, 0);
  }
  // coreth's go-ethereum counter chain/block/bad/count, under the EVM's namespace with the chain label.
  add('avalanche_evm_eth_chain_block_bad_count', 'counter', '', '{chain="C"}', 0);
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
