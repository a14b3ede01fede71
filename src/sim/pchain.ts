import type { Network } from '../api/data/reader.js';
import { AVAX_ASSET_ID } from '../api/catalog.js';

// The simulated P-chain's staking transactions and subnets (World.pchain), rendered field for
// field as the service sends them (ListPChainTransactionsResponse, ListSubnetsResponse).

export interface StakingInput {
  txHash: string;
  /** One of the SDK's PChainTransactionType values. */
  txType: string;
  /** Owners and reward addresses, bare (avax1…). */
  addresses: string[];
  nodeId: string;
  /** nAVAX staked. */
  amount: string;
  startTimestamp: number;
  endTimestamp: number;
  blockTimestamp: number;
  rewardTxHash?: string;
}

export interface BlockchainInput {
  blockchainId: string;
  name: string;
  vmId: string;
  evmChainId?: number;
  createBlockTimestamp: number;
}

export interface SubnetInput {
  subnetId: string;
  createBlockTimestamp: number;
  owners: string[];
  threshold: number;
  locktime: number;
  isL1: boolean;
  conversionTx?: string;
  manager?: { blockchainId: string; contractAddress: string };
  blockchains: BlockchainInput[];
}

/** What a change may do to a subnet; undefined keeps the value. */
export interface SubnetChange {
  owners?: string[] | undefined;
  threshold?: number | undefined;
  locktime?: number | undefined;
  convertToL1?: { txHash: string; manager?: { blockchainId: string; contractAddress: string } | undefined } | undefined;
  manager?: { blockchainId: string; contractAddress: string } | undefined;
  addBlockchain?: BlockchainInput | undefined;
  /** false: the service stops listing it. */
  listed?: boolean | undefined;
}

const P_CHAIN_ID = '11111111111111111111111111111111LpoYY';
const PRIMARY_SUBNET = '11111111111111111111111111111111LpoYY';
const VALIDATOR_TYPES = new Set(['AddValidatorTx', 'AddPermissionlessValidatorTx']);
/** Every transaction burns this much (nAVAX). */
const FEE = '1000000';

export class PChainWorld {
  readonly #staking: Array<{ network: Network; input: StakingInput }> = [];
  readonly #subnets = new Map<string, { network: Network; input: SubnetInput; listed: boolean }>();

  addStaking(network: Network, input: StakingInput): void {
    this.#staking.push({ network, input });
  }

  /** The staking transactions the service lists as active at `now` (their period has not ended). */
  stakingTransactions(network: Network, now: number): StakingInput[] {
    return this.#staking.filter((s) => same(s.network, network) && s.input.endTimestamp > now).map((s) => s.input);
  }

  addSubnet(network: Network, input: SubnetInput): void {
    this.#subnets.set(key(network, input.subnetId), { network, input, listed: true });
  }

  changeSubnet(subnetId: string, change: SubnetChange): void {
    const found = [...this.#subnets.values()].find((s) => s.input.subnetId === subnetId);
    if (!found) throw new Error(`no subnet ${subnetId}`);
    const s = { ...found.input };
    if (change.owners) s.owners = change.owners;
    if (change.threshold !== undefined) s.threshold = change.threshold;
    if (change.locktime !== undefined) s.locktime = change.locktime;
    if (change.convertToL1) {
      s.isL1 = true;
      s.conversionTx = change.convertToL1.txHash;
      if (change.convertToL1.manager) s.manager = change.convertToL1.manager;
    }
    if (change.manager) s.manager = change.manager;
    if (change.addBlockchain) s.blockchains = [...s.blockchains, change.addBlockchain];
    found.input = s;
    if (change.listed !== undefined) found.listed = change.listed;
  }

  subnets(network: Network): SubnetInput[] {
    return [...this.#subnets.values()].filter((s) => s.listed && same(s.network, network)).map((s) => s.input);
  }
}

function asset(network: Network, amount: string) {
  return { assetId: AVAX_ASSET_ID[network], name: 'Avalanche', symbol: 'AVAX', denomination: 9, type: 'secp256k1' as const, amount };
}

/** A height that grows with the block time, as a string (the service's type). */
const height = (t: number): string => String(Math.max(1, Math.floor(t / 2) - 800_000_000));

function utxo(network: Network, s: StakingInput, o: { txHash: string; amount: string; at: number; index: number; stake: boolean; consumedBy?: string }) {
  const a = asset(network, o.amount);
  return {
    addresses: s.addresses,
    asset: a,
    consumedOnChainId: P_CHAIN_ID,
    ...(o.consumedBy ? { consumingTxHash: o.consumedBy, consumingBlockNumber: height(s.blockTimestamp), consumingBlockTimestamp: s.blockTimestamp } : {}),
    createdOnChainId: P_CHAIN_ID,
    utxoId: `${o.txHash.slice(0, 40)}${o.index}`,
    amount: o.amount,
    assetId: a.assetId,
    blockNumber: height(o.at),
    blockTimestamp: o.at,
    outputIndex: o.index,
    ...(o.stake ? { staked: true, utxoStartTimestamp: s.startTimestamp, utxoEndTimestamp: s.endTimestamp } : { staked: false }),
    threshold: 1,
    txHash: o.txHash,
    utxoType: o.stake ? ('STAKE' as const) : ('TRANSFER' as const),
  };
}

/** A PChainTransaction of a staking type. */
export function stakingItem(network: Network, s: StakingInput) {
  const validator = VALIDATOR_TYPES.has(s.txType);
  const spent = (BigInt(s.amount) + BigInt(FEE)).toString();
  const years = (s.endTimestamp - s.startTimestamp) / 31_536_000;
  return {
    txHash: s.txHash,
    txType: s.txType,
    blockTimestamp: s.blockTimestamp,
    blockNumber: height(s.blockTimestamp),
    blockHash: `${s.txHash.slice(0, 20)}Block${height(s.blockTimestamp)}`,
    consumedUtxos: [utxo(network, s, { txHash: `${s.txHash.slice(0, 30)}Funding`, amount: spent, at: s.blockTimestamp - 86_400, index: 0, stake: false, consumedBy: s.txHash })],
    emittedUtxos: [utxo(network, s, { txHash: s.txHash, amount: s.amount, at: s.blockTimestamp, index: 0, stake: true })],
    value: [asset(network, s.amount)],
    amountBurned: [asset(network, FEE)],
    amountStaked: [asset(network, s.amount)],
    amountL1ValidatorBalanceBurned: [],
    startTimestamp: s.startTimestamp,
    endTimestamp: s.endTimestamp,
    ...(validator ? { delegationFeePercent: '2.0000' } : {}),
    nodeId: s.nodeId,
    subnetId: PRIMARY_SUBNET,
    // About 6 % a year of the stake.
    estimatedReward: ((BigInt(s.amount) * BigInt(Math.round(years * 60_000))) / 1_000_000n).toString(),
    ...(s.rewardTxHash ? { rewardTxHash: s.rewardTxHash } : {}),
    rewardAddresses: s.addresses,
    memo: '0x',
    stakingTxHash: s.txHash,
  };
}

/** An EVM genesis, small but in the SDK's shape (EvmGenesisDto). */
function evmGenesis(chainId: number, timestamp: number) {
  return {
    config: { chainId, homesteadBlock: 0, eip150Block: 0, eip155Block: 0, eip158Block: 0, byzantiumBlock: 0, constantinopleBlock: 0, petersburgBlock: 0, istanbulBlock: 0, muirGlacierBlock: 0, subnetEVMTimestamp: 0, feeConfig: { gasLimit: 12_000_000, targetBlockRate: 2, minBaseFee: 25_000_000_000, targetGas: 60_000_000, baseFeeChangeDenominator: 36, minBlockGasCost: 0, maxBlockGasCost: 1_000_000, blockGasCostStep: 200_000 }, warpConfig: { blockTimestamp: timestamp, quorumNumerator: 67, requirePrimaryNetworkSigners: true } },
    alloc: { '8db97c7cece249c2b98bdc0226cc4c2a57bf52fc': { balance: '0x52b7d2dcc80cd2e4000000' } },
    nonce: '0x0',
    timestamp: `0x${timestamp.toString(16)}`,
    extraData: '0x',
    gasLimit: '0xb71b00',
    difficulty: '0x0',
    mixHash: `0x${'0'.repeat(64)}`,
    coinbase: `0x${'0'.repeat(40)}`,
    number: '0x0',
    gasUsed: '0x0',
    parentHash: `0x${'0'.repeat(64)}`,
  };
}

/** A Subnet item; an EVM blockchain carries its genesis, another VM's an encoded one. */
export function subnetItem(s: SubnetInput) {
  const owner = { locktime: s.locktime, threshold: s.threshold, addresses: s.owners };
  return {
    createBlockTimestamp: s.createBlockTimestamp,
    createBlockIndex: height(s.createBlockTimestamp),
    subnetId: s.subnetId,
    ownerAddresses: s.owners,
    threshold: s.threshold,
    locktime: s.locktime,
    subnetOwnershipInfo: owner,
    isL1: s.isL1,
    ...(s.conversionTx ? { l1ConversionTransactionHash: s.conversionTx } : {}),
    ...(s.manager ? { l1ValidatorManagerDetails: s.manager } : {}),
    blockchains: s.blockchains.map((b) => ({
      createBlockTimestamp: b.createBlockTimestamp,
      createBlockNumber: height(b.createBlockTimestamp),
      blockchainId: b.blockchainId,
      vmId: b.vmId,
      subnetId: s.subnetId,
      blockchainName: b.name,
      ...(b.evmChainId !== undefined ? { evmChainId: b.evmChainId, genesisData: evmGenesis(b.evmChainId, b.createBlockTimestamp) } : { genesisData: '0x00000000000100000000' }),
    })),
  };
}

// fuji and testnet are the same network.
function same(a: Network, b: Network): boolean {
  return (a === 'testnet' ? 'fuji' : a) === (b === 'testnet' ? 'fuji' : b);
}

function key(network: Network, id: string): string {
  return `${network === 'testnet' ? 'fuji' : network}/${id}`;
}
