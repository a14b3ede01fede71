// A simulated AvalancheGo node's state and what its answers share: the types, the primary
// network's constants, Go's encodings, and the RPCChainVM plugins it runs (node.ts, node-info.ts).

/** The BLS key the data simulator lists for every validation (samples.ts common()). */
export const SAMPLE_BLS_PUBLIC_KEY = '0x8f95423f7142d00a48e1014a3de8d28907d420dc33b3052a6dee03a3f2941a393c2351e354704ca66a3fc29870282e15';
export const SAMPLE_POP =
  '0x86a3ab4c45cfe31cae34c1d06f212434ac71b1be6cfe046c80c162e057614a94a5bc9f1ded1a7029deb0ba4ca7c9b71411e293438691be79c2dbf19d1ca7c3eadb9c756246fc5de5b7b89511c7d7302ae051d9e03d7991138299b5ed6a570a98';
export const DEFAULT_NODE_VERSION = 'avalanchego/1.14.1';
/** The primary network's subnet ID and chain IDs (mainnet), with the aliases the node accepts. */
export const PRIMARY_SUBNET = '11111111111111111111111111111111LpoYY';
export const PRIMARY_CHAINS: Record<'P' | 'X' | 'C', { id: string; aliases: string[] }> = {
  P: { id: PRIMARY_SUBNET, aliases: ['P', 'platform'] },
  X: { id: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM', aliases: ['X', 'avm'] },
  C: { id: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5', aliases: ['C', 'evm'] },
};
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
  /** Simulated ms its tip froze (no block since; health stays green); undefined: it produces blocks. */
  frozenSince?: number | undefined;
}

/** An L1 chain's fields to set; `protocol: null`: the node's own again. */
export type L1ChainInput = { subnetId?: string | undefined; vmId?: string | undefined; vmVersion?: string | undefined; protocol?: number | null | undefined; frozen?: boolean | undefined };

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
export function refusal(node: SimNode, chain: L1Chain): string | undefined {
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

/** The L1 chains whose plugin the node runs (not refused). */
export function loadedL1Chains(node: SimNode): Array<{ id: string } & L1Chain> {
  return Object.entries(node.l1Chains)
    .filter(([, c]) => refusal(node, c) === undefined)
    .map(([id, c]) => ({ id, ...c }));
}

export function primaryAlias(chain: string): 'P' | 'X' | 'C' | undefined {
  for (const [alias, c] of Object.entries(PRIMARY_CHAINS)) {
    if (c.id === chain || c.aliases.includes(chain)) return alias as 'P' | 'X' | 'C';
  }
  return undefined;
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

export function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
