// Real-shaped Data API items (field for field as the live service sends them), for the
// simulator, the schema specs and the rule specs.

export interface PeriodInput {
  nodeId: string;
  txHash: string;
  startTimestamp: number;
  endTimestamp: number;
  /** Default: the primary network. */
  subnetId?: string;
  /** nAVAX staked; default 2000 AVAX. An auto-renewed validator's grows as it restakes. */
  amountStaked?: string;
  /** Percent (0..100), rendered on active periods only; default 99.93. */
  uptimePerformance?: number;
  /** Active periods: "avalanchego/1.13.2" by default; null leaves the field out (a node that reports none). */
  avalancheGoVersion?: string | null;
  /** Active periods: merged over the defaults (reachable 100 %, benched 0 % on every chain). */
  validatorHealth?: Partial<ValidatorHealth>;
  /** Active periods: nAVAX that can still be delegated; default 6948766 AVAX. */
  delegationCapacity?: string;
  /** Completed periods: nAVAX; "0" is a validation that ended without a reward. Defaults as below. */
  rewards?: { validationRewardAmount?: string; delegationRewardAmount?: string };
}

export interface ValidatorHealth {
  reachabilityPercent: number;
  benchedPChainRequestsPercent: number;
  benchedXChainRequestsPercent: number;
  benchedCChainRequestsPercent: number;
}

const HEALTHY: ValidatorHealth = {
  reachabilityPercent: 100,
  benchedPChainRequestsPercent: 0,
  benchedXChainRequestsPercent: 0,
  benchedCChainRequestsPercent: 0,
};

/** `patch` over `base`, leaving out the keys `patch` holds as undefined (they keep the base's value). */
export function mergeDefined<T extends object>(base: T, patch: Partial<T> | undefined): T {
  const out = { ...base };
  for (const [k, v] of Object.entries(patch ?? {})) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

const PRIMARY_SUBNET = '11111111111111111111111111111111LpoYY';

function common(p: PeriodInput) {
  return {
    txHash: p.txHash,
    nodeId: p.nodeId,
    subnetId: p.subnetId ?? PRIMARY_SUBNET,
    amountStaked: p.amountStaked ?? '2000000000000',
    delegationFee: '2.0000',
    startTimestamp: p.startTimestamp,
    endTimestamp: p.endTimestamp,
    blsCredentials: {
      publicKey: '0x8f95423f7142d00a48e1014a3de8d28907d420dc33b3052a6dee03a3f2941a393c2351e354704ca66a3fc29870282e15',
      proofOfPossession:
        '0x86a3ab4c45cfe31cae34c1d06f212434ac71b1be6cfe046c80c162e057614a94a5bc9f1ded1a7029deb0ba4ca7c9b71411e293438691be79c2dbf19d1ca7c3eadb9c756246fc5de5b7b89511c7d7302ae051d9e03d7991138299b5ed6a570a98',
    },
  };
}

export function activeValidator(p: PeriodInput) {
  return {
    ...common(p),
    validationStatus: 'active' as const,
    stakePercentage: 0.0071,
    delegatorCount: 12,
    amountDelegated: '51234000000000',
    // Percent (0..100), as the service's own node observed it.
    uptimePerformance: p.uptimePerformance ?? 99.93,
    // Optional in the service's schema: some nodes report none (the field is then absent, never null).
    ...(p.avalancheGoVersion === null ? {} : { avalancheGoVersion: p.avalancheGoVersion ?? 'avalanchego/1.13.2' }),
    delegationCapacity: p.delegationCapacity ?? '6948766000000000',
    potentialRewards: { validationRewardAmount: '120491336290', delegationRewardAmount: '8210335010' },
    validatorHealth: mergeDefined(HEALTHY, p.validatorHealth),
    geolocation: geolocation(p.nodeId),
  };
}

const PLACES = [
  { city: 'Ashburn', country: 'United States', countryCode: 'US', latitude: 39.0437, longitude: -77.4875 },
  { city: 'Singapore', country: 'Singapore', countryCode: 'SG', latitude: 1.2897, longitude: 103.8501 },
  { city: 'Frankfurt am Main', country: 'Germany', countryCode: 'DE', latitude: 50.1188, longitude: 8.6843 },
];

/**
 * The service cannot place every node (the field is required but nullable): about one node
 * in five has none. Chosen by node, so a node keeps its place from one poll to the next.
 */
function geolocation(nodeId: string) {
  const h = stableHash(nodeId);
  return h % 5 === 0 ? null : (PLACES[Math.floor(h / 5) % PLACES.length] ?? null);
}

function stableHash(text: string): number {
  let h = 0;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h;
}

export function completedValidator(p: PeriodInput) {
  return {
    ...common(p),
    validationStatus: 'completed' as const,
    delegatorCount: 9,
    amountDelegated: '40110000000000',
    rewards: {
      validationRewardAmount: p.rewards?.validationRewardAmount ?? '118030412983',
      delegationRewardAmount: p.rewards?.delegationRewardAmount ?? '7904551002',
      rewardAddresses: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'],
      rewardTxHash: '2sJ6UoPSrqkpdcNWvNFnudjRJdvxVLdXgDaGGD4mfhJm5aULHF',
    },
  };
}

export function pendingValidator(p: PeriodInput) {
  return { ...common(p), validationStatus: 'pending' as const };
}

export function removedValidator(p: PeriodInput) {
  const { delegationFee: _fee, ...rest } = common(p);
  return {
    ...rest,
    validationStatus: 'removed' as const,
    removeTxHash: '2Xz6kLZ5n2Y8mL5M6d6nqR2HtV2o2p5yWkfaQ7ChzZkwSwbVhN',
    removeTimestamp: p.endTimestamp - 3600,
  };
}

export const validatorSample = {
  active: activeValidator,
  completed: completedValidator,
  pending: pendingValidator,
  removed: removedValidator,
} as const;
export type SampleStatus = keyof typeof validatorSample;

export interface DelegationInput {
  txHash: string;
  nodeId: string;
  rewardAddresses: string[];
  amountDelegated: string;
  startTimestamp: number;
  endTimestamp: number;
  /**
   * nAVAX, completed delegations only (the estimates of open ones stay computed). Either one
   * alone sets the other through the 2 % fee; "0" is a delegation that ended without a reward.
   */
  grossReward?: string;
  netReward?: string;
}

/** Delegator items, keyed by delegationStatus: completed carries the real rewards. */
export function delegatorItem(input: DelegationInput, status: string) {
  const { grossReward, netReward, ...d } = input;
  const base = { ...d, delegationFee: '2.0000', delegationStatus: status };
  // Rewards as the service computes them: about 6 % a year of the stake, 2 % fee to the validator.
  const years = (d.endTimestamp - d.startTimestamp) / 31_536_000;
  const gross = (BigInt(d.amountDelegated) * BigInt(Math.round(years * 60_000))) / 1_000_000n;
  const net = (gross * 98n) / 100n;
  if (status === 'completed') {
    const g = grossReward ?? (netReward === undefined ? gross.toString() : ((BigInt(netReward) * 100n) / 98n).toString());
    const n = netReward ?? ((BigInt(g) * 98n) / 100n).toString();
    return { ...base, grossReward: g, netReward: n };
  }
  return { ...base, estimatedGrossReward: gross.toString(), estimatedNetReward: net.toString() };
}

export interface L1Input {
  validationId: string;
  nodeId: string;
  subnetId: string;
  weight: number;
  creationTimestamp: number;
}

export function l1ValidatorItem(v: L1Input, remainingBalance: number) {
  return {
    validationId: v.validationId,
    validationIdHex: `0x${Buffer.from(v.validationId).toString('hex').slice(0, 64).padEnd(64, '0')}`,
    nodeId: v.nodeId,
    subnetId: v.subnetId,
    weight: v.weight,
    remainingBalance,
    creationTimestamp: v.creationTimestamp,
    blsCredentials: {},
    remainingBalanceOwner: { addresses: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'], threshold: 1 },
    deactivationOwner: { addresses: ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'], threshold: 1 },
  };
}

export interface IcmInput {
  messageId: string;
  from: string;
  to: string;
  sourceBlockchainId: string;
  destinationBlockchainId: string;
  sourceEvmChainId: string;
  destinationEvmChainId: string;
  sourceTimestamp: number;
  rewardName?: string;
  rewardSymbol?: string;
}

/** ICM messages, keyed by status; delivered_source_not_indexed has no sourceTransaction. */
export function icmItem(m: IcmInput, status: string, deliveredTimestamp?: number) {
  const common = {
    messageId: m.messageId,
    icmContractAddress: '0x253b2784c75e510dD0fF1da844684a1aC0aa5fcf',
    sourceBlockchainId: m.sourceBlockchainId,
    destinationBlockchainId: m.destinationBlockchainId,
    sourceEvmChainId: m.sourceEvmChainId,
    destinationEvmChainId: m.destinationEvmChainId,
    messageNonce: '42',
    from: m.from,
    to: m.to,
    data: '0x',
    messageExecuted: status !== 'pending',
    receipts: [],
    receiptDelivered: false,
    rewardDetails: {
      address: '0x0000000000000000000000000000000000000000',
      name: m.rewardName ?? 'Wrapped AVAX',
      symbol: m.rewardSymbol ?? 'WAVAX',
      decimals: 18,
      logoUri: '',
      ercType: 'ERC-20',
      price: { currencyCode: 'usd', value: 0 },
      value: '0',
    },
    status,
  };
  const source = { txHash: `0xsrc${m.messageId.slice(2, 62)}`, timestamp: m.sourceTimestamp, gasSpent: '120000' };
  const destination = {
    txHash: `0xdst${m.messageId.slice(2, 62)}`,
    timestamp: deliveredTimestamp ?? m.sourceTimestamp + 5,
    gasSpent: '210000',
    rewardRedeemer: '0x0000000000000000000000000000000000000000',
    delivererAddress: '0x7a5aFe4C0F5a2B1b7D1f1C0bD5eE1eF8cB0d9a11',
  };
  if (status === 'delivered_source_not_indexed') return { ...common, destinationTransaction: destination };
  if (status === 'delivered') return { ...common, sourceTransaction: source, destinationTransaction: destination };
  return { ...common, sourceTransaction: source };
}

export type PrimaryChain = 'p-chain' | 'c-chain' | 'x-chain';

export interface ProposedBlockInput {
  nodeId: string;
  chain: PrimaryChain;
  /** Unix seconds. */
  timestamp: number;
}

const BLOCK_TYPES: Record<PrimaryChain, string> = { 'p-chain': 'BanffStandardBlock', 'c-chain': 'BanffStandardBlock', 'x-chain': 'StandardBlock' };
/** Heights grow with time (one a second past a base), so a later block has a higher number. */
const HEIGHT_BASE: Record<PrimaryChain, number> = { 'p-chain': 19_000_000, 'c-chain': 60_000_000, 'x-chain': 2_000_000 };
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** A stable id for `seed`: cb58-looking for the P- and X-chain, 0x-hex for the C-chain. */
function blockId(seed: string, hex: boolean): string {
  let h = 0n;
  for (let i = 0; i < 4; i++) h = (h << 32n) | BigInt(stableHash(`${i}/${seed}`));
  if (hex) return `0x${h.toString(16).padStart(32, '0').repeat(2)}`;
  let out = '';
  for (let n = (h << 96n) | h; out.length < 49; n /= 58n) out += BASE58[Number(n % 58n)] ?? '1';
  return out;
}

/** A block a node proposed on a primary-network chain, as the per-node blocks list renders it. */
export function proposedBlockItem(b: ProposedBlockInput) {
  const hex = b.chain === 'c-chain';
  const height = HEIGHT_BASE[b.chain] + Math.max(0, b.timestamp - 1_700_000_000);
  const seed = `${b.chain}/${b.nodeId}/${b.timestamp}`;
  const txs = [blockId(`${seed}/tx0`, hex), blockId(`${seed}/tx1`, hex)];
  return {
    blockNumber: String(height),
    blockHash: blockId(seed, hex),
    parentHash: blockId(`${seed}/parent`, hex),
    blockTimestamp: b.timestamp,
    blockType: BLOCK_TYPES[b.chain],
    txCount: txs.length,
    transactions: txs,
    blockSizeBytes: 1_024 + (stableHash(seed) % 4_096),
    ...(b.chain === 'p-chain' ? { l1ValidatorsAccruedFees: 1_250_000, activeL1Validators: 42, currentSupply: '462179934000000000' } : {}),
    proposerDetails: {
      proposerId: blockId(`${seed}/proposer`, false),
      proposerParentId: blockId(`${seed}/parent`, false),
      proposerNodeId: b.nodeId,
      proposerPChainHeight: HEIGHT_BASE['p-chain'] + Math.max(0, b.timestamp - 1_700_000_100),
      proposerTimestamp: b.timestamp,
    },
  };
}
