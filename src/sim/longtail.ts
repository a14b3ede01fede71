import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Network } from '../api/data/reader.js';
import { NETWORKS } from '../rules/fields.js';

// The long tail of the Data API that no dedicated kind reads but the `endpoint` kind can
// watch: NFT tokens of a collection, contracts deployed by an address, a block's
// transactions, an X-chain asset's transactions. World holds one of these; items are
// rendered field for field as the SDK's schemas say.

export interface NftInput {
  chainId: string;
  collection: string;
  tokenId: string;
  ercType: 'ERC-721' | 'ERC-1155';
  name: string;
  symbol: string;
  /** Metadata name: chain text, anyone can set it. */
  metadataName?: string | undefined;
  owner?: string | undefined;
  minted: number;
}

export interface DeploymentInput {
  chainId: string;
  deployer: string;
  address: string;
  ercType: 'ERC-20' | 'ERC-721' | 'ERC-1155' | 'UNKNOWN';
  name?: string | undefined;
  symbol?: string | undefined;
  txHash: string;
  deployed: number;
}

export interface BlockTxInput {
  chainId: string;
  block: number;
  index: number;
  txHash: string;
  from: string;
  to: string;
  /** Wei, decimal. */
  value: string;
  at: number;
}

export interface AssetTxInput {
  network: Network;
  assetId: string;
  assetName: string;
  assetSymbol: string;
  denomination: number;
  txHash: string;
  txType: string;
  memo: string;
  /** In the asset's smallest unit, decimal. */
  amount: string;
  from: string;
  to: string;
  at: number;
}

const lower = (a: string): string => a.toLowerCase();
/** A stable fake hash for fields the inputs do not name (block hashes, UTXO ids). */
const hash = (text: string, prefix = '0x'): string => `${prefix}${createHash('sha256').update(text).digest('hex')}`;

export class LongTail {
  readonly nfts: NftInput[] = [];
  readonly deployments: DeploymentInput[] = [];
  readonly blockTxs: BlockTxInput[] = [];
  readonly assetTxs: AssetTxInput[] = [];

  /** A collection's tokens, newest mint first (the simulator's order; the live one is not documented). */
  nftTokens(chainId: string, collection: string): unknown[] {
    return this.nfts
      .filter((t) => t.chainId === chainId && lower(t.collection) === lower(collection))
      .sort((a, b) => b.minted - a.minted || compare(a.tokenId, b.tokenId))
      .map(nftItem);
  }

  /** Contracts deployed by an address, newest first. */
  deployedBy(chainId: string, deployer: string): unknown[] {
    return this.deployments
      .filter((d) => d.chainId === chainId && lower(d.deployer) === lower(deployer))
      .sort((a, b) => b.deployed - a.deployed || compare(a.address, b.address))
      .map(contractItem);
  }

  /** A block's transactions in block order; `blockId` is its number or its hash. */
  blockTransactions(chainId: string, blockId: string): unknown[] {
    return this.blockTxs
      .filter((t) => t.chainId === chainId && (String(t.block) === blockId || blockHash(t.chainId, t.block) === lower(blockId)))
      .sort((a, b) => a.index - b.index)
      .map(blockTxItem);
  }

  /** An asset's X-chain transactions, newest first, within the time range and of the types asked for. */
  assetTransactions(network: Network, assetId: string, q: { txTypes?: string[] | undefined; start?: number | undefined; end?: number | undefined }): unknown[] {
    const net = (n: Network) => (n === 'testnet' ? 'fuji' : n);
    return this.assetTxs
      .filter((t) => net(t.network) === net(network) && t.assetId === assetId)
      .filter((t) => (!q.txTypes || q.txTypes.includes(t.txType)) && (q.start === undefined || t.at >= q.start) && (q.end === undefined || t.at <= q.end))
      .sort((a, b) => b.at - a.at || compare(a.txHash, b.txHash))
      .map(assetTxItem);
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const blockHash = (chainId: string, block: number): string => hash(`block/${chainId}/${block}`);

export function nftItem(t: NftInput) {
  const metadata = { indexStatus: 'INDEXED', metadataLastUpdatedTimestamp: t.minted, ...(t.metadataName === undefined ? {} : { name: t.metadataName }), imageUri: `ipfs://sim/${t.tokenId}.png` };
  const tokenUri = `ipfs://sim/${t.collection}/${t.tokenId}.json`;
  if (t.ercType === 'ERC-1155') return { address: t.collection, ercType: t.ercType, tokenId: t.tokenId, tokenUri, metadata };
  return { address: t.collection, name: t.name, symbol: t.symbol, ercType: t.ercType, tokenId: t.tokenId, tokenUri, metadata, ...(t.owner ? { ownerAddress: t.owner } : {}) };
}

export function contractItem(d: DeploymentInput) {
  const base = {
    ...(d.name === undefined ? {} : { name: d.name }),
    address: d.address,
    deploymentDetails: { txHash: d.txHash, deployerAddress: d.deployer },
    ercType: d.ercType,
  };
  const symbol = d.symbol === undefined ? {} : { symbol: d.symbol };
  if (d.ercType === 'ERC-20') return { ...base, ...symbol, decimals: 18 };
  if (d.ercType === 'UNKNOWN') return base;
  return { ...base, ...symbol };
}

export function blockTxItem(t: BlockTxInput) {
  return {
    blockNumber: String(t.block),
    blockTimestamp: t.at,
    blockHash: blockHash(t.chainId, t.block),
    chainId: t.chainId,
    blockIndex: t.index,
    txHash: t.txHash,
    txStatus: '1',
    txType: 2,
    gasLimit: '21000',
    gasUsed: '21000',
    gasPrice: '25000000000',
    nonce: String(t.index),
    from: { address: t.from },
    to: { address: t.to },
    method: { callType: 'NATIVE_TRANSFER', methodHash: '' },
    value: t.value,
  };
}

export function assetTxItem(t: AssetTxInput) {
  const asset = { assetId: t.assetId, name: t.assetName, symbol: t.assetSymbol, denomination: t.denomination, type: 'secp256k1', amount: t.amount };
  const utxo = (addresses: string[], id: string) => ({
    addresses,
    asset,
    consumedOnChainId: X_CHAIN_ID,
    createdOnChainId: X_CHAIN_ID,
    utxoId: hash(id, ''),
    creationTxHash: t.txHash,
    locktime: 0,
    outputIndex: '0',
    threshold: 1,
    timestamp: t.at,
    utxoType: 'transfer',
  });
  return {
    txHash: t.txHash,
    chainFormat: 'linear',
    timestamp: t.at,
    txType: t.txType,
    memo: t.memo,
    consumedUtxos: [utxo([t.from], `${t.txHash}/in`)],
    emittedUtxos: [utxo([t.to], `${t.txHash}/out`)],
    amountUnlocked: [asset],
    amountCreated: [asset],
    blockHeight: Math.floor(t.at / 2),
    blockHash: hash(`x/${t.txHash}`),
  };
}

/** The mainnet X-chain's blockchain id. */
const X_CHAIN_ID = '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM';
/** AVAX on the mainnet X-chain. */
export const AVAX_ASSET_ID = 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z';

// ---- the scenario's keys (docs/simulator.md): built around the scenario's own time type

const chainId = z.union([z.string(), z.number()]).transform(String).default('43114');
const decimal = z.union([z.string().regex(/^\d+$/, 'a whole number, as decimal digits'), z.number().int().nonnegative()]).transform(String);

/** The long tail's keys of a world change; `when` is the scenario's time type. */
export function longTailChange<W extends z.ZodType>(when: W) {
  return {
    nfts: z
      .array(
        z.strictObject({
          chainId,
          collection: z.string(),
          tokenId: decimal,
          ercType: z.enum(['ERC-721', 'ERC-1155']).default('ERC-721'),
          name: z.string().default('Sim Collection'),
          symbol: z.string().default('SIM'),
          metadataName: z.string().optional(),
          owner: z.string().optional(),
          minted: when,
        }),
      )
      .optional(),
    /** Changes a token in place: a new owner (a transfer), new metadata. */
    nft: z
      .strictObject({ chainId, collection: z.string(), tokenId: decimal, owner: z.string().optional(), metadataName: z.string().optional() })
      .refine((t) => t.owner !== undefined || t.metadataName !== undefined, { message: 'nothing to change: give owner or metadataName' })
      .optional(),
    deployments: z
      .array(
        z.strictObject({
          chainId,
          deployer: z.string(),
          address: z.string(),
          ercType: z.enum(['ERC-20', 'ERC-721', 'ERC-1155', 'UNKNOWN']).default('UNKNOWN'),
          name: z.string().optional(),
          symbol: z.string().optional(),
          txHash: z.string(),
          deployed: when,
        }),
      )
      .optional(),
    blockTransactions: z
      .array(z.strictObject({ chainId, block: z.number().int().nonnegative(), txHash: z.string(), from: z.string(), to: z.string(), value: decimal.default('0'), at: when }))
      .optional(),
    assetTransactions: z
      .array(
        z.strictObject({
          network: z.enum(NETWORKS).default('mainnet'),
          assetId: z.string().default(AVAX_ASSET_ID),
          assetName: z.string().default('Avalanche'),
          assetSymbol: z.string().default('AVAX'),
          denomination: z.number().int().min(0).max(32).default(9),
          txHash: z.string(),
          txType: z.string().default('BaseTx'),
          memo: z.string().default(''),
          amount: decimal,
          from: z.string(),
          to: z.string(),
          at: when,
        }),
      )
      .optional(),
  };
}

/** What a change adds, with times in the scenario's own type `T`. */
export interface LongTailChange<T> {
  nfts?: Array<Omit<NftInput, 'minted'> & { minted: T }> | undefined;
  nft?: Pick<NftInput, 'chainId' | 'collection' | 'tokenId' | 'owner' | 'metadataName'> | undefined;
  deployments?: Array<Omit<DeploymentInput, 'deployed'> & { deployed: T }> | undefined;
  blockTransactions?: Array<Omit<BlockTxInput, 'index' | 'at'> & { at: T }> | undefined;
  assetTransactions?: Array<Omit<AssetTxInput, 'at'> & { at: T }> | undefined;
}

/** Adds what a change lists; `at` turns the scenario's time into unix seconds. */
export function applyLongTail<T>(lt: LongTail, change: LongTailChange<T>, at: (w: T) => number): void {
  for (const t of change.nfts ?? []) lt.nfts.push({ ...t, minted: at(t.minted) });
  if (change.nft) {
    const { chainId, collection, tokenId, owner, metadataName } = change.nft;
    const token = lt.nfts.find((t) => t.chainId === chainId && lower(t.collection) === lower(collection) && t.tokenId === tokenId);
    if (!token) throw new Error(`no NFT ${tokenId} in collection ${collection} on chain ${chainId}`);
    if (owner !== undefined) token.owner = owner;
    if (metadataName !== undefined) token.metadataName = metadataName;
  }
  for (const d of change.deployments ?? []) lt.deployments.push({ ...d, deployed: at(d.deployed) });
  for (const t of change.blockTransactions ?? []) {
    const index = lt.blockTxs.filter((b) => b.chainId === t.chainId && b.block === t.block).length;
    lt.blockTxs.push({ ...t, index, at: at(t.at) });
  }
  for (const t of change.assetTransactions ?? []) lt.assetTxs.push({ ...t, at: at(t.at) });
}
