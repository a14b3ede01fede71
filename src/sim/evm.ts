import { createHash } from 'node:crypto';

// EVM address activity: native transactions with their ERC-20 transfers and internal calls,
// per chain, listed per address as the service lists them (only items the address is an
// end of); routes-evm.ts serves them.

export const INTERNAL_TX_TYPES = ['UNKNOWN', 'CALL', 'CREATE', 'CREATE2', 'CREATE3', 'CALLCODE', 'DELEGATECALL', 'STATICCALL'] as const;

export interface EvmTokenInput {
  address: string;
  /** Whatever the contract says: hostile text is welcome here. */
  name: string;
  symbol: string;
  decimals: number;
}

export interface EvmTxInput {
  chainId: string;
  /** Default: one made from the chain, block and position. */
  txHash?: string | undefined;
  block: number;
  /** Block time, seconds. */
  timestamp: number;
  from: string;
  to: string;
  /** Wei. */
  value: string;
  failed: boolean;
  /** Base units of each token. */
  erc20: Array<{ token: EvmTokenInput; from: string; to: string; value: string }>;
  /** Wei. */
  internal: Array<{ from: string; to: string; value: string; type: (typeof INTERNAL_TX_TYPES)[number]; reverted: boolean }>;
}

/** An item of a list and the block it is in. */
export interface Listed {
  block: number;
  item: unknown;
}

interface Entry extends EvmTxInput {
  txHash: string;
  blockIndex: number;
  nonce: number;
}

/** A block every 2 s since a fixed start: heights grow with time as the C-chain's do (about 83 million in 2026). */
export function blockAt(seconds: number): number {
  return Math.max(1, Math.floor((seconds - 1_600_000_000) / 2));
}

/** The C-chain's blockchain ids stand for its EVM chain ids in the path. */
const CHAIN_ALIASES: Record<string, string> = {
  '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5': '43114',
  yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp: '43113',
};

export class EvmLedger {
  readonly #txs: Entry[] = [];

  add(tx: EvmTxInput): void {
    const blockIndex = this.#txs.filter((t) => t.chainId === tx.chainId && t.block === tx.block).length;
    const nonce = this.#txs.filter((t) => t.chainId === tx.chainId && same(t.from, tx.from)).length;
    this.#txs.push({ ...tx, txHash: tx.txHash ?? hex64(`tx/${tx.chainId}/${tx.block}/${blockIndex}`), blockIndex, nonce });
  }

  /** Transactions that touch the address (as sender or recipient, or through a transfer or call inside), oldest first. */
  transactions(chainId: string, address: string): Listed[] {
    return this.#on(chainId)
      .filter((t) => same(t.from, address) || same(t.to, address) || t.erc20.some((e) => touches(e, address)) || t.internal.some((i) => touches(i, address)))
      .map((t) => ({ sort: [t.block, t.blockIndex, 0], item: transactionDetails(t, address) }))
      .sort(byPosition)
      .map(({ sort, item }) => ({ block: sort[0] as number, item }));
  }

  erc20Transfers(chainId: string, address: string): Listed[] {
    return this.#on(chainId)
      .flatMap((t) => t.erc20.map((e, logIndex) => ({ t, e, logIndex })))
      .filter(({ e }) => touches(e, address))
      .map(({ t, e, logIndex }) => ({ sort: [t.block, t.blockIndex, logIndex], item: { ...inBlock(t), ...erc20Fields(e, logIndex) } }))
      .sort(byPosition)
      .map(({ sort, item }) => ({ block: sort[0] as number, item }));
  }

  internalTransactions(chainId: string, address: string): Listed[] {
    return this.#on(chainId)
      .flatMap((t) => t.internal.map((i, n) => ({ t, i, n })))
      .filter(({ i }) => touches(i, address))
      .map(({ t, i, n }) => ({ sort: [t.block, t.blockIndex, n], item: { ...inBlock(t), ...internalFields(i) } }))
      .sort(byPosition)
      .map(({ sort, item }) => ({ block: sort[0] as number, item }));
  }

  #on(chainId: string): Entry[] {
    const id = CHAIN_ALIASES[chainId] ?? chainId;
    return this.#txs.filter((t) => (CHAIN_ALIASES[t.chainId] ?? t.chainId) === id);
  }
}

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
const touches = (x: { from: string; to: string }, address: string): boolean => same(x.from, address) || same(x.to, address);

/** Oldest first; the routes reverse it for the service's default, newest first. */
function byPosition(a: { sort: number[] }, b: { sort: number[] }): number {
  for (let i = 0; i < a.sort.length; i++) {
    const d = (a.sort[i] as number) - (b.sort[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

function hex64(text: string): string {
  return `0x${createHash('sha256').update(text).digest('hex')}`;
}

function inBlock(t: Entry) {
  return { blockNumber: String(t.block), blockTimestamp: t.timestamp, blockHash: hex64(`block/${t.chainId}/${t.block}`), txHash: t.txHash };
}

function erc20Fields(e: EvmTxInput['erc20'][number], logIndex: number) {
  return {
    from: { address: e.from },
    to: { address: e.to },
    logIndex,
    value: e.value,
    erc20Token: { address: e.token.address, name: e.token.name, symbol: e.token.symbol, decimals: e.token.decimals, ercType: 'ERC-20' },
  };
}

function internalFields(i: EvmTxInput['internal'][number]) {
  return { from: { address: i.from }, to: { address: i.to }, internalTxType: i.type, value: i.value, isReverted: i.reverted, gasUsed: '2300', gasLimit: '30000' };
}

/** A list item of /transactions: the transaction, and only the transfers and calls the address is an end of. */
function transactionDetails(t: Entry, address: string) {
  const call = t.erc20.length > 0;
  return {
    nativeTransaction: {
      ...inBlock(t),
      chainId: t.chainId,
      blockIndex: t.blockIndex,
      txStatus: t.failed ? '0' : '1',
      txType: 2,
      gasLimit: call ? '120000' : '21000',
      gasUsed: call ? '51234' : '21000',
      gasPrice: '25000000000',
      nonce: String(t.nonce),
      from: { address: t.from },
      to: { address: t.to },
      method: call ? { callType: 'CONTRACT_CALL', methodHash: '0xa9059cbb', methodName: 'transfer(address,uint256)' } : { callType: 'NATIVE_TRANSFER', methodHash: '' },
      value: t.value,
    },
    erc20Transfers: t.erc20.flatMap((e, logIndex) => (touches(e, address) ? [erc20Fields(e, logIndex)] : [])),
    internalTransactions: t.internal.flatMap((i) => (touches(i, address) ? [internalFields(i)] : [])),
  };
}
