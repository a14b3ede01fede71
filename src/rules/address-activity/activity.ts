import type { Erc20Transfer, EvmTransaction, InternalTransaction } from '../../api/schemas.js';
import type { List } from './schema.js';

/** One transaction or transfer of a list, as the rule reads it. */
export interface Activity {
  list: List;
  /**
   * Unique within the list, and the same wherever the service places it (never the block: a
   * transaction listed at another block later is the one already reported): txHash (native),
   * txHash:logIndex (ERC-20), call and its order (internal).
   */
  key: string;
  /** Undefined when the service's blockNumber is not a number: such an item cannot be placed, so it is never reported. */
  block: number | undefined;
  /** Block time, seconds. */
  timestamp: number;
  txHash: string;
  /** Lowercased. */
  from: string;
  to: string;
  /** Base units (wei, or the token's), as the service sent them. */
  value: string;
  /** ERC-20 transfers: the token as its contract describes itself (hostile text). */
  token?: { address: string; name: string; symbol: string; decimals: number };
  /** A failed transaction or a reverted internal call: nothing moved. */
  failed: boolean;
  logIndex?: number;
  callType?: string;
}

export type Placed = Activity & { block: number };

export function isPlaced(a: Activity): a is Placed {
  return a.block !== undefined;
}

/** Heights past 2^53 do not exist on any chain; such text is not a block number. */
function blockOf(text: string): number | undefined {
  return /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

export function fromTransactions(items: readonly EvmTransaction[]): Activity[] {
  return items.map(({ nativeTransaction: t }): Activity => ({
    list: 'native',
    key: t.txHash,
    block: blockOf(t.blockNumber),
    timestamp: t.blockTimestamp,
    txHash: t.txHash,
    from: t.from.address.toLowerCase(),
    to: t.to.address.toLowerCase(),
    value: t.value,
    // "1" succeeded, "0" failed; a status the service adds later is not read as a failure.
    failed: t.txStatus === '0',
  }));
}

export function fromErc20(items: readonly Erc20Transfer[]): Activity[] {
  return items.map((t): Activity => ({
    list: 'erc20',
    key: `${t.txHash}:${t.logIndex}`,
    block: blockOf(t.blockNumber),
    timestamp: t.blockTimestamp,
    txHash: t.txHash,
    from: t.from.address.toLowerCase(),
    to: t.to.address.toLowerCase(),
    value: t.value,
    token: t.erc20Token,
    failed: false,
    logIndex: t.logIndex,
  }));
}

/**
 * Internal calls carry no index: a call is its transaction, type, ends and value, and
 * identical calls of one transaction are told apart by their order in the list.
 */
export function fromInternals(items: readonly InternalTransaction[]): Activity[] {
  const count = new Map<string, number>();
  return items.map((t): Activity => {
    const from = t.from.address.toLowerCase();
    const to = t.to.address.toLowerCase();
    const base = `${t.txHash}:${t.internalTxType}:${from}:${to}:${t.value}`;
    const n = (count.get(base) ?? 0) + 1;
    count.set(base, n);
    return {
      list: 'internal',
      key: n === 1 ? base : `${base}#${n}`,
      block: blockOf(t.blockNumber),
      timestamp: t.blockTimestamp,
      txHash: t.txHash,
      from,
      to,
      value: t.value,
      failed: t.isReverted,
      callType: t.internalTxType,
    };
  });
}

/** A key as stored before keys left the block out (`0x…@123:CALL:…`, internal calls): as it reads now. */
export function currentKey(key: string): string {
  return key.replace(/^(0x[0-9a-fA-F]+)@\d+:/, '$1:');
}
