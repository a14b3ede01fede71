import { failingGauges, failingRuns, lastRun, selectChecks, type CheckSpec, type Failure } from './node-checks.js';
import { infoAnswer } from './node-info.js';
import { renderNodeMetrics } from './node-metrics.js';
import { proposervmAnswer } from './proposervm.js';
import {
  DEFAULT_NODE_VERSION,
  PRIMARY_SUBNET,
  SAMPLE_BLS_PUBLIC_KEY,
  SUBNET_EVM_VM_ID,
  goTime,
  loadedL1Chains,
  primaryAlias,
  refusal,
  sortKeys,
  type HealthBody,
  type HealthWorker,
  type NodeInput,
  type RpcAnswer,
  type SimNode,
} from './node-state.js';

// Simulated AvalancheGo nodes: the operator's own node APIs (/ext/health, /ext/info,
// /ext/metrics) as avalanchego 1.14.2 and v1.15.0-fuji answer them (docs/node-api-source.md).
// Held to the Go source by test/contract/node.test.ts.

export * from './node-state.js';

/** The node's default warning and shutdown thresholds of available disk space, percent. */
const DISK_WARNING = 10;
const DISK_REQUIRED = 3;

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
        const { protocol, frozen, ...rest } = chain;
        const prior = node.l1Chains[id] ?? { subnetId: id, vmId: SUBNET_EVM_VM_ID, vmVersion: 'v0.8.0', protocol: undefined };
        // A tip that freezes keeps the instant it froze; freezing again changes nothing.
        const frozenSince = frozen === undefined ? prior.frozenSince : frozen ? (prior.frozenSince ?? now) : undefined;
        node.l1Chains[id] = { ...prior, ...definedOnly(rest), protocol: protocol === undefined ? prior.protocol : (protocol ?? undefined), frozenSince };
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

  /** platform.validates {subnetID}: the blockchains the declared nodes run for that subnet (service.go Validates). */
  validates(params: Record<string, unknown>): RpcAnswer {
    const subnet = params['subnetID'];
    if (typeof subnet !== 'string') return { error: { code: -32000, message: 'couldn\'t unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls', data: null } };
    const ids = new Set<string>();
    for (const node of this.#nodes.values()) for (const [id, c] of Object.entries(node.l1Chains)) if (c.subnetId === subnet) ids.add(id);
    return { result: { blockchainIDs: [...ids].sort() } };
  }

  /** POST /ext/bc/{chain}/proposervm: one JSON-RPC call. undefined: no such node, or no such L1 chain on it (404). */
  proposervm(nodeId: string, chain: string, method: string): RpcAnswer | undefined {
    const node = this.#nodes.get(nodeId);
    return node ? proposervmAnswer(node, chain, method, this.nowMs()) : undefined;
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
    return notReady ? new Map([['bootstrapped', { error: 'subnets not bootstrapped', details: bootstrappingSubnets(node), since: node.startedAt }]]) : new Map();
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

/** The subnets with a chain not bootstrapped (the `bootstrapped` check's message). */
function bootstrappingSubnets(node: SimNode): string[] {
  const subnets = Object.entries(node.bootstrapped)
    .filter(([, done]) => !done)
    .map(([chain]) => node.l1Chains[chain]?.subnetId ?? PRIMARY_SUBNET);
  return [...new Set(subnets)].sort();
}

/** Aliases and the primary chains' ids fold onto P, X, C. */
function canonicalChains(chains: Record<string, boolean>): Record<string, boolean> {
  return Object.fromEntries(Object.entries(chains).map(([chain, value]) => [primaryAlias(chain) ?? chain, value]));
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
