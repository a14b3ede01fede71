import { failingGauges, failingRuns, lastRun, selectChecks, type CheckSpec, type Failure } from './node-checks.js';
import { renderNodeMetrics } from './node-metrics.js';

// Simulated AvalancheGo nodes: the operator's own node APIs (/ext/health, /ext/info,
// /ext/metrics) as avalanchego 1.14.2 and v1.15.0-fuji answer them (docs/node-api-source.md). Held to the
// Go source by test/contract/node.test.ts.

/** The BLS key the data simulator lists for every validation (samples.ts common()). */
export const SAMPLE_BLS_PUBLIC_KEY = '0x8f95423f7142d00a48e1014a3de8d28907d420dc33b3052a6dee03a3f2941a393c2351e354704ca66a3fc29870282e15';
const SAMPLE_POP =
  '0x86a3ab4c45cfe31cae34c1d06f212434ac71b1be6cfe046c80c162e057614a94a5bc9f1ded1a7029deb0ba4ca7c9b71411e293438691be79c2dbf19d1ca7c3eadb9c756246fc5de5b7b89511c7d7302ae051d9e03d7991138299b5ed6a570a98';
export const DEFAULT_NODE_VERSION = 'avalanchego/1.14.1';
/** The primary network's subnet ID and chain IDs (mainnet), with the aliases the node accepts. */
export const PRIMARY_SUBNET = '11111111111111111111111111111111LpoYY';
export const PRIMARY_CHAINS: Record<'P' | 'X' | 'C', { id: string; aliases: string[] }> = {
  P: { id: PRIMARY_SUBNET, aliases: ['P', 'platform'] },
  X: { id: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM', aliases: ['X', 'avm'] },
  C: { id: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5', aliases: ['C', 'evm'] },
};
/** The node's default warning and shutdown thresholds of available disk space, percent. */
const DISK_WARNING = 10;
const DISK_REQUIRED = 3;
/** Subnet-EVM's VM ID: an L1 chain's VM unless its scenario names another. */
export const SUBNET_EVM_VM_ID = 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy';
/** Where a node looks for a plugin (--plugin-dir's default under the operator's home), for the handshake error. */
const PLUGIN_DIR = '/home/avalanche/.avalanchego/plugins';

/**
 * version/compatibility.json (v1.15.0-fuji): the RPCChainVM protocol each release speaks
 * (version/constants.go RPCChainVMProtocol: 45 at v1.14.2, 46 at v1.15.0).
 */
const PROTOCOL_OF: Record<string, number> = {
  '1.15.0': 46,
  '1.14.2': 45,
  '1.14.1': 44,
  '1.14.0': 44,
  '1.13.5': 43,
  '1.13.4': 43,
  '1.13.3': 42,
  '1.13.2': 41,
  '1.13.1': 40,
  '1.13.0': 39,
  '1.12.2': 39,
};

/** An L1 chain the node validates, run by a plugin VM (chains/manager.go, vms/rpcchainvm). */
export interface L1Chain {
  subnetId: string;
  vmId: string;
  /** What the plugin reports (info.getNodeVersion's vmVersions). */
  vmVersion: string;
  /** The RPCChainVM protocol the plugin speaks; undefined: the node's. Another: refused at the handshake. */
  protocol: number | undefined;
}

/** An L1 chain's fields to set; `protocol: null`: the node's own again. */
export type L1ChainInput = { subnetId?: string | undefined; vmId?: string | undefined; vmVersion?: string | undefined; protocol?: number | null | undefined };

/** The C-Chain's VM: Coreth; after Helicon SAE in the transition VM (`switched` in this process, `restarted` after a restart). */
export type CChainVm = 'coreth' | 'switched' | 'restarted';

/** What a scenario or a test may set on a node; undefined keeps the value, null resets it. */
export interface NodeInput {
  nodeId: string;
  /** The network the node runs on (what its P-Chain API and info.upgrades answer for); default mainnet. */
  network?: 'mainnet' | 'fuji' | undefined;
  /** Upgrade times its build schedules, over its network's (info.upgrades): e.g. heliconTime 9999-12-01T00:00:00Z for a build that does not know Helicon. */
  upgrades?: Record<string, string> | undefined;
  /** The connection is destroyed with no answer (the node or its API is down). */
  down?: boolean | undefined;
  /** The NodeID the node answers with (another staking key); null: its own again. */
  reportsNodeId?: string | null | undefined;
  /** nodePOP's publicKey; null: the node reports no nodePOP. */
  blsPublicKey?: string | null | undefined;
  version?: string | undefined;
  /** The node's RPCChainVM protocol; null: the one its version's release speaks. */
  rpcProtocolVersion?: number | null | undefined;
  /** false: started with --api-health-enabled=false (no /ext/health, no node-wide checks, disk gauges 0). */
  healthApi?: boolean | undefined;
  /** false: started with --api-info-enabled=false (no /ext/info). */
  infoApi?: boolean | undefined;
  /** The C-Chain's VM (Coreth, or SAE after Helicon). */
  cChain?: CChainVm | undefined;
  /** Per blockchain ID: an L1 chain it validates (fields given replace those set); null: no longer. */
  l1Chains?: Record<string, L1ChainInput | null> | undefined;
  /** Per chain (P, X, C, an alias or a blockchain id); each given replaces its value. */
  bootstrapped?: Record<string, boolean> | undefined;
  /** check name → its error text; null makes the check pass again. */
  failing?: Record<string, string | null> | undefined;
  rewardingStake?: number | undefined;
  weightedAverage?: number | undefined;
  /** false: info.uptime answers "node is not a validator". */
  validator?: boolean | undefined;
  peers?: number | undefined;
  diskAvailablePercent?: number | undefined;
  /** Series text (`avalanche_network_peers`, `name{label="v"}`) → value, over the rendered exposition; null removes an override. */
  metrics?: Record<string, number | null> | undefined;
  /** Metric name → the name it is exported under (as an AvalancheGo upgrade renames one); null: its own again. */
  renamed?: Record<string, string | null> | undefined;
}

export interface SimNode {
  nodeId: string;
  network: 'mainnet' | 'fuji';
  upgrades: Record<string, string>;
  down: boolean;
  reportsNodeId: string | undefined;
  blsPublicKey: string | null;
  version: string;
  rpcProtocolVersion: number | undefined;
  healthApi: boolean;
  infoApi: boolean;
  cChain: CChainVm;
  l1Chains: Record<string, L1Chain>;
  bootstrapped: Record<string, boolean>;
  /** Failing checks set explicitly (check → error). */
  failing: Record<string, string>;
  rewardingStake: number;
  weightedAverage: number;
  validator: boolean;
  peers: number;
  diskAvailablePercent: number;
  metrics: Record<string, number>;
  renamed: Record<string, string>;
  /** Simulated ms the node was declared (its counters grow, and its checks run, from there). */
  startedAt: number;
}

/** A JSON-RPC 2.0 answer as gorilla/rpc json2 writes it: always HTTP 200. */
export type RpcAnswer = { result: unknown } | { error: { code: number; message: string; data: null } };

/** The health workers (api/health/health.go): GET /ext/health and health.health are `health`. */
export type HealthWorker = 'health' | 'readiness' | 'liveness';
export type HealthBody = { checks: Record<string, unknown>; healthy: boolean };

/** The simulated nodes, by NodeID; the clock is the world's. */
export class NodeWorld {
  readonly #nodes = new Map<string, SimNode>();
  readonly #failures = new Map<string, Map<string, Failure>>();
  /** When the readiness check first passed (RegisterMonotonicCheck: it passes for good from then). */
  readonly #ready = new Map<string, number>();

  constructor(readonly nowMs: () => number) {}

  /** Declares a node, or changes one already declared. */
  set(input: NodeInput): SimNode {
    const now = this.nowMs();
    const node = this.#nodes.get(input.nodeId) ?? fresh(input.nodeId, now);
    if (input.network !== undefined) node.network = input.network;
    if (input.upgrades !== undefined) node.upgrades = { ...node.upgrades, ...input.upgrades };
    if (input.down !== undefined) node.down = input.down;
    if (input.reportsNodeId !== undefined) node.reportsNodeId = input.reportsNodeId ?? undefined;
    if (input.blsPublicKey !== undefined) node.blsPublicKey = input.blsPublicKey;
    if (input.version !== undefined) node.version = input.version;
    if (input.rpcProtocolVersion !== undefined) node.rpcProtocolVersion = input.rpcProtocolVersion ?? undefined;
    if (input.healthApi !== undefined) node.healthApi = input.healthApi;
    if (input.infoApi !== undefined) node.infoApi = input.infoApi;
    if (input.cChain !== undefined) node.cChain = input.cChain;
    for (const [id, chain] of Object.entries(input.l1Chains ?? {})) {
      if (chain === null) delete node.l1Chains[id];
      else {
        const { protocol, ...rest } = chain;
        const prior = node.l1Chains[id] ?? { subnetId: id, vmId: SUBNET_EVM_VM_ID, vmVersion: 'v0.8.0', protocol: undefined };
        node.l1Chains[id] = { ...prior, ...definedOnly(rest), protocol: protocol === undefined ? prior.protocol : (protocol ?? undefined) };
      }
    }
    if (input.bootstrapped) node.bootstrapped = { ...node.bootstrapped, ...canonicalChains(input.bootstrapped) };
    for (const [check, error] of Object.entries(input.failing ?? {})) {
      if (error === null) delete node.failing[check];
      else node.failing[check] = error;
    }
    if (input.rewardingStake !== undefined) node.rewardingStake = input.rewardingStake;
    if (input.weightedAverage !== undefined) node.weightedAverage = input.weightedAverage;
    if (input.validator !== undefined) node.validator = input.validator;
    if (input.peers !== undefined) node.peers = input.peers;
    if (input.diskAvailablePercent !== undefined) node.diskAvailablePercent = input.diskAvailablePercent;
    for (const [series, value] of Object.entries(input.metrics ?? {})) {
      if (value === null) delete node.metrics[series];
      else node.metrics[series] = value;
    }
    for (const [name, to] of Object.entries(input.renamed ?? {})) {
      if (to === null) delete node.renamed[name];
      else node.renamed[name] = to;
    }
    this.#nodes.set(node.nodeId, node);
    this.#refresh(node, now);
    return node;
  }

  get(nodeId: string): SimNode | undefined {
    return this.#nodes.get(nodeId);
  }

  remove(nodeId: string): void {
    this.#nodes.delete(nodeId);
    this.#failures.delete(nodeId);
    this.#ready.delete(nodeId);
  }

  get size(): number {
    return this.#nodes.size;
  }

  /**
   * A health worker's answer (GET /ext/health[/…], health.health/readiness/liveness): the status
   * (200, or 503 when a reported check fails) and the Go APIReply, over the checks with one of
   * `tags` (and the application ones), or all. undefined: no such node.
   */
  health(nodeId: string, worker: HealthWorker = 'health', tags: string[] = []): { status: number; body: HealthBody } | undefined {
    const node = this.#nodes.get(nodeId);
    if (!node) return undefined;
    const now = this.nowMs();
    const failures = this.#workerFailures(node, worker, now);
    const checks: Record<string, unknown> = {};
    for (const spec of selectChecks(checkSpecs(node, worker, failures), tags)) {
      const failure = failures.get(spec.name);
      checks[spec.name] = goResult(failure ? failure.details : passingDetails(node, spec.name), node.startedAt, now, failure);
    }
    const healthy = Object.values(checks).every((c) => (c as { error?: unknown }).error === undefined);
    return { status: healthy ? 200 : 503, body: { checks: sortKeys(checks), healthy } };
  }

  /** POST /ext/info: one JSON-RPC call. undefined: no such node. */
  info(nodeId: string, method: string, params: Record<string, unknown>): RpcAnswer | undefined {
    const node = this.#nodes.get(nodeId);
    if (!node) return undefined;
    return infoAnswer(node, method, params, this.nowMs());
  }

  /** GET /ext/metrics: a Prometheus text exposition with the node's real metric names. */
  metrics(nodeId: string): string | undefined {
    const node = this.#nodes.get(nodeId);
    if (!node) return undefined;
    const now = this.nowMs();
    const gauges = Object.fromEntries(
      (['health', 'readiness', 'liveness'] as const).map((worker) => {
        const failures = this.#workerFailures(node, worker, now);
        return [worker, failingGauges(checkSpecs(node, worker, failures), (name) => failures.has(name))];
      }),
    ) as Record<HealthWorker, Map<string, number>>;
    return renderNodeMetrics({ ...node, loadedL1: loadedL1Chains(node) }, gauges, now);
  }

  #workerFailures(node: SimNode, worker: HealthWorker, now: number): Map<string, Failure> {
    if (worker === 'health') return this.#refresh(node, now);
    if (worker === 'liveness') return new Map();
    // readiness: the bootstrapped check alone, monotonic.
    const notReady = this.#ready.get(node.nodeId) === undefined;
    return notReady ? new Map([['bootstrapped', { error: 'subnets not bootstrapped', details: [PRIMARY_SUBNET], since: node.startedAt }]]) : new Map();
  }

  /** The failing health checks now: those set, plus what the state implies (disk, bootstrapping, no peers, a refused plugin). */
  #refresh(node: SimNode, now: number): Map<string, Failure> {
    const current = this.#failures.get(node.nodeId) ?? new Map<string, Failure>();
    const wanted = new Map<string, { error: string; details?: unknown }>();
    const disk = Math.floor(node.diskAvailablePercent);
    const diskDetails = diskspaceDetails(node);
    if (disk < DISK_REQUIRED) {
      wanted.set('diskspace', { error: `remaining available disk space percentage (${disk}%) is below minimum required available space percentage (${DISK_REQUIRED}%)`, details: diskDetails });
    } else if (disk < DISK_WARNING) {
      wanted.set('diskspace', { error: `remaining available disk space percentage (${disk}%) is below warning threshold available space percentage (${DISK_WARNING}%)`, details: diskDetails });
    }
    const bootstrapping = bootstrappingSubnets(node);
    if (bootstrapping.length > 0) wanted.set('bootstrapped', { error: 'subnets not bootstrapped', details: bootstrapping });
    else if (!this.#ready.has(node.nodeId)) this.#ready.set(node.nodeId, now);
    if (node.peers === 0) wanted.set('network', { error: 'network layer is unhealthy reason: not connected to a minimum of 1 peer(s) only 0', details: networkDetails(node) });
    for (const [id, chain] of Object.entries(node.l1Chains)) {
      const refused = refusal(node, chain);
      if (refused) wanted.set(id, { error: refused });
    }
    for (const [check, error] of Object.entries(node.failing)) wanted.set(check, { error, details: wanted.get(check)?.details });
    // With --api-health-enabled=false the node-wide checks are never registered.
    if (!node.healthApi) for (const name of NODE_WIDE_CHECKS) wanted.delete(name);
    for (const name of [...current.keys()]) if (!wanted.has(name)) current.delete(name);
    for (const [name, w] of wanted) {
      const prior = current.get(name);
      current.set(name, prior ? { ...prior, error: w.error, details: w.details } : { ...w, since: now });
    }
    this.#failures.set(node.nodeId, current);
    return current;
  }
}

function fresh(nodeId: string, now: number): SimNode {
  return {
    nodeId,
    network: 'mainnet',
    upgrades: {},
    down: false,
    reportsNodeId: undefined,
    blsPublicKey: SAMPLE_BLS_PUBLIC_KEY,
    version: DEFAULT_NODE_VERSION,
    rpcProtocolVersion: undefined,
    healthApi: true,
    infoApi: true,
    cChain: 'coreth',
    l1Chains: {},
    bootstrapped: { P: true, X: true, C: true },
    failing: {},
    rewardingStake: 100,
    weightedAverage: 100,
    validator: true,
    peers: 60,
    diskAvailablePercent: 62,
    metrics: {},
    renamed: {},
    startedAt: now,
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The node's RPCChainVM protocol: set, or its release's (compatibility.json); a later 1.15 build than the table knows speaks 46. */
export function protocolOf(node: Pick<SimNode, 'version' | 'rpcProtocolVersion'>): number {
  if (node.rpcProtocolVersion !== undefined) return node.rpcProtocolVersion;
  const semver = /(\d+\.\d+\.\d+)/.exec(node.version)?.[1] ?? '';
  return PROTOCOL_OF[semver] ?? (semver.startsWith('1.15.') ? 46 : 45);
}

/**
 * The health check a chain whose plugin was refused registers (chains/manager.go: "failed to
 * create chain on subnet …", the handshake's error from vms/rpcchainvm/runtime/subprocess).
 */
function refusal(node: SimNode, chain: L1Chain): string | undefined {
  const ours = protocolOf(node);
  if (chain.protocol === undefined || chain.protocol === ours) return undefined;
  return (
    `failed to create chain on subnet ${chain.subnetId}: error while creating vm: handshake failed: RPCChainVM protocol version mismatch between AvalancheGo and Virtual Machine plugin. ` +
    `AvalancheGo version ${appVersion(node)} implements RPCChainVM protocol version ${ours}. The VM located at ${PLUGIN_DIR}/${chain.vmId} implements RPCChainVM protocol version ${chain.protocol}. ` +
    'Please make sure that there is an exact match of the protocol versions. This can be achieved by updating your VM or running an older/newer version of AvalancheGo. Please be advised that some virtual machines may not yet support the latest RPCChainVM protocol version'
  );
}

/** version.Current as the handshake error prints it (avalanchego/1.15.0). */
function appVersion(node: SimNode): string {
  return node.version.includes('/') ? node.version : `avalanchego/${node.version.replace(/^v/, '')}`;
}

/** The subnets with a chain not bootstrapped (the `bootstrapped` check's message). */
function bootstrappingSubnets(node: SimNode): string[] {
  const subnets = Object.entries(node.bootstrapped)
    .filter(([, done]) => !done)
    .map(([chain]) => node.l1Chains[chain]?.subnetId ?? PRIMARY_SUBNET);
  return [...new Set(subnets)].sort();
}

/** The L1 chains whose plugin the node runs (not refused). */
function loadedL1Chains(node: SimNode): Array<{ id: string } & L1Chain> {
  return Object.entries(node.l1Chains)
    .filter(([, c]) => refusal(node, c) === undefined)
    .map(([id, c]) => ({ id, ...c }));
}

/** Aliases and the primary chains' ids fold onto P, X, C. */
function canonicalChains(chains: Record<string, boolean>): Record<string, boolean> {
  return Object.fromEntries(Object.entries(chains).map(([chain, value]) => [primaryAlias(chain) ?? chain, value]));
}

function primaryAlias(chain: string): 'P' | 'X' | 'C' | undefined {
  for (const [alias, c] of Object.entries(PRIMARY_CHAINS)) {
    if (c.id === chain || c.aliases.includes(chain)) return alias as 'P' | 'X' | 'C';
  }
  return undefined;
}

/** The checks node/node.go initHealthAPI registers, only while the health API is enabled. */
const NODE_WIDE_CHECKS = ['network', 'router', 'database', 'diskspace', 'bls', 'futureupgrade'];

/**
 * A worker's checks: node.go's node-wide ones (application), chains/manager.go's `bootstrapped`
 * (application) and one per chain named by its alias, tagged with its subnet ID; any other set failing.
 */
function checkSpecs(node: SimNode, worker: HealthWorker, failures: Map<string, Failure>): CheckSpec[] {
  if (worker === 'liveness') return [];
  if (worker === 'readiness') return [{ name: 'bootstrapped', application: true, tags: [] }];
  const specs = new Map<string, CheckSpec>();
  const application = (name: string) => specs.set(name, { name, application: true, tags: [] });
  if (node.healthApi) NODE_WIDE_CHECKS.forEach(application);
  application('bootstrapped');
  for (const chain of Object.keys(node.bootstrapped)) specs.set(chain, { name: chain, application: false, tags: primaryAlias(chain) ? [PRIMARY_SUBNET] : [] });
  for (const [id, c] of Object.entries(node.l1Chains)) specs.set(id, { name: id, application: false, tags: [c.subnetId] });
  for (const name of failures.keys()) if (!specs.has(name)) application(name);
  return [...specs.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function diskspaceDetails(node: SimNode): Record<string, number> {
  const total = 2_000_000_000_000;
  return { availableDiskBytes: Math.floor((total * node.diskAvailablePercent) / 100), availableDiskPercentage: Math.floor(node.diskAvailablePercent) };
}

/** network/network.go HealthCheck's details: ConnectedPeersKey and the others it sets (the ingress report after its grace period). */
function networkDetails(node: SimNode): Record<string, unknown> {
  const talking = node.peers > 0;
  return {
    connectedPeers: node.peers,
    ...(talking ? { timeSinceLastMsgReceived: '96.2ms', timeSinceLastMsgSent: '96.2ms' } : {}),
    sendFailRate: 0,
    'primary network validator health': { ingressConnectionCount: talking ? Math.ceil(node.peers / 2) : 0, primaryNetworkValidator: node.validator },
  };
}

/** What a passing check's `message` holds (node.go, network.go, chains/manager.go); undefined: Go's nil, omitted. */
function passingDetails(node: SimNode, name: string): unknown {
  switch (name) {
    case 'network':
      return networkDetails(node);
    case 'router':
      return { longestRunningRequest: '0s', outstandingRequests: 0 };
    case 'database':
      return undefined;
    case 'diskspace':
      return diskspaceDetails(node);
    case 'bls':
      return node.validator ? 'node has the correct BLS key' : 'node is not a validator';
    case 'futureupgrade':
      return { localUpgradeTime: '2025-11-19T16:00:00Z', modeUpgradeTime: '2025-11-19T16:00:00Z', modeUpgradeWeightPercentage: 100, numUpgradeTimes: 1 };
    case 'bootstrapped':
      return [];
    default:
      return { consensus: { lastAcceptedHeight: 0, outstandingBlocks: 0 }, networking: { percentConnected: 0.98 } };
  }
}

/** health.Result as Go's encoder writes it (omitempty drops message, error, contiguousFailures and timeOfFirstFailure), as of the newest run. */
function goResult(details: unknown, startedAt: number, now: number, failure: Failure | undefined): Record<string, unknown> {
  const ran = Math.max(lastRun(startedAt, now), failure?.since ?? 0);
  return {
    ...(details === undefined || details === null ? {} : { message: details }),
    ...(failure ? { error: failure.error } : {}),
    timestamp: goTime(ran),
    duration: 12_345,
    ...(failure ? { contiguousFailures: failingRuns(startedAt, failure.since, now), timeOfFirstFailure: goTime(failure.since) } : {}),
  };
}

/** Go's time.Time JSON (RFC 3339, fraction without trailing zeros), in UTC. */
export function goTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
}

/** utils/json.Float64: a quoted string with four decimals. */
export function goFloat64(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  return n.toFixed(4);
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function rpcError(message: string): RpcAnswer {
  return { error: { code: -32000, message, data: null } };
}

/** info.* as api/info/service.go answers; an unknown method as gorilla/rpc does ("can't find method"). */
function infoAnswer(node: SimNode, method: string, params: Record<string, unknown>, now: number): RpcAnswer {
  switch (method) {
    case 'info.getNodeID':
      return {
        result: {
          nodeID: node.reportsNodeId ?? node.nodeId,
          nodePOP: node.blsPublicKey === null ? null : { publicKey: node.blsPublicKey, proofOfPossession: SAMPLE_POP },
        },
      };
    case 'info.getNodeVersion': {
      // vms/manager.go Versions: each VM that answered its Version call, by its primary alias; the
      // primary network's VMs report the node's own version (Coreth from v1.14.2; v0.15.4 at v1.14.1).
      const semver = node.version.replace(/^[^/]*\//, 'v');
      const evm = semver === 'v1.14.1' ? 'v0.15.4' : semver;
      const plugins = Object.fromEntries(loadedL1Chains(node).map((c) => [c.vmId, c.vmVersion]));
      return {
        result: {
          version: node.version,
          databaseVersion: 'v1.4.5',
          rpcProtocolVersion: String(protocolOf(node)),
          gitCommit: '1cf1fc3d1711a09fde7319d2b48609c8cba93680',
          vmVersions: sortKeys({ avm: semver, evm, platform: semver, ...plugins }),
        },
      };
    }
    case 'info.isBootstrapped': {
      const chain = typeof params['chain'] === 'string' ? params['chain'] : '';
      if (chain === '') return rpcError("argument 'chain' not given");
      const key = primaryAlias(chain) ?? chain;
      // An L1 chain is bootstrapped unless set otherwise; one whose plugin was refused does not exist.
      const l1 = loadedL1Chains(node).some((c) => c.id === key);
      const state = node.bootstrapped[key] ?? (l1 ? true : undefined);
      if (state === undefined) return rpcError(`there is no chain with alias/ID '${chain}'`);
      return { result: { isBootstrapped: state } };
    }
    case 'info.uptime':
      if (!node.validator) return rpcError("couldn't get node uptime: node is not a validator");
      return { result: { rewardingStakePercentage: goFloat64(node.rewardingStake), weightedAveragePercentage: goFloat64(node.weightedAverage) } };
    case 'info.upgrades':
      return { result: { ...UPGRADE_CONFIG[node.network], ...node.upgrades } };
    case 'info.peers':
      return { result: { numPeers: String(node.peers), peers: samplePeers(Math.min(node.peers, 3), now) } };
    default: {
      // The codec upper-cases the method's first letter before gorilla/rpc looks it up.
      const [service = '', fn = ''] = method.split('.', 2);
      if (/^[A-Z]/.test(fn)) return rpcError('method must start with a non-uppercase letter');
      const goName = `${service}.${fn.charAt(0).toUpperCase()}${fn.slice(1)}`;
      return rpcError(service === 'info' ? `rpc: can't find method "${goName}"` : `rpc: can't find service "${goName}"`);
    }
  }
}

/**
 * upgrade.Config as info.upgrades answers it (upgrade/upgrade.go: Mainnet and Fuji of the v1.15.0
 * builds; time.Time as RFC 3339, graniteEpochDuration in nanoseconds, the height a bare number).
 */
const UPGRADE_CONFIG: Record<'mainnet' | 'fuji', Record<string, unknown>> = {
  mainnet: {
    apricotPhase1Time: '2021-03-31T14:00:00Z',
    apricotPhase2Time: '2021-05-10T11:00:00Z',
    apricotPhase3Time: '2021-08-24T14:00:00Z',
    apricotPhase4Time: '2021-09-22T21:00:00Z',
    apricotPhase4MinPChainHeight: 793005,
    apricotPhase5Time: '2021-12-02T18:00:00Z',
    apricotPhasePre6Time: '2022-09-05T01:30:00Z',
    apricotPhase6Time: '2022-09-06T20:00:00Z',
    apricotPhasePost6Time: '2022-09-07T03:00:00Z',
    banffTime: '2022-10-18T16:00:00Z',
    cortinaTime: '2023-04-25T15:00:00Z',
    cortinaXChainStopVertexID: 'jrGWDh5Po9FMj54depyunNixpia5PN4aAYxfmNzU8n752Rjga',
    durangoTime: '2024-03-06T16:00:00Z',
    etnaTime: '2024-12-16T17:00:00Z',
    fortunaTime: '2025-04-08T15:00:00Z',
    graniteTime: '2025-11-19T16:00:00Z',
    graniteEpochDuration: 300_000_000_000,
    heliconTime: '2026-09-22T15:00:00Z',
  },
  fuji: {
    apricotPhase1Time: '2021-03-26T14:00:00Z',
    apricotPhase2Time: '2021-05-05T14:00:00Z',
    apricotPhase3Time: '2021-08-16T19:00:00Z',
    apricotPhase4Time: '2021-09-16T21:00:00Z',
    apricotPhase4MinPChainHeight: 47437,
    apricotPhase5Time: '2021-11-24T15:00:00Z',
    apricotPhasePre6Time: '2022-09-06T20:00:00Z',
    apricotPhase6Time: '2022-09-06T20:00:00Z',
    apricotPhasePost6Time: '2022-09-07T06:00:00Z',
    banffTime: '2022-10-03T14:00:00Z',
    cortinaTime: '2023-04-06T15:00:00Z',
    cortinaXChainStopVertexID: '2D1cmbiG36BqQMRyHt4kFhWarmatA1ighSpND3FeFgz3vFVtCZ',
    durangoTime: '2024-02-13T16:00:00Z',
    etnaTime: '2024-11-25T16:00:00Z',
    fortunaTime: '2025-03-13T15:00:00Z',
    graniteTime: '2025-10-29T15:00:00Z',
    graniteEpochDuration: 300_000_000_000,
    heliconTime: '2026-07-28T15:00:00Z',
  },
};

/** peer.Info plus benched, as info.peers lists them. */
function samplePeers(n: number, now: number): unknown[] {
  return Array.from({ length: n }, (_, i) => ({
    ip: `203.0.113.${10 + i}:9651`,
    publicIP: `203.0.113.${10 + i}:9651`,
    nodeID: ['NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', 'NodeID-NFBbbJ4qCmNaCzeW7sxErhvWqvEQMnYcN'][i] ?? `NodeID-${i}`,
    version: DEFAULT_NODE_VERSION,
    upgradeTime: 1_763_568_000,
    lastSent: goTime(now - 120),
    lastReceived: goTime(now - 95),
    observedUptime: '100',
    trackedSubnets: [],
    supportedACPs: [],
    objectedACPs: [],
    benched: [],
  }));
}
