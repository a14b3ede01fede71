import { ceilUnits, formatUnits, usableDecimals } from '../../base/token-amount.js';
import { isoSeconds } from '../format.js';
import type { AlertDraft } from '../types.js';
import type { Placed } from './activity.js';
import type { Direction, List, Spec } from './schema.js';

// What a user reads about one transaction or transfer. Token names and symbols come from
// contracts anyone can deploy: they stay data (clipped, never interpreted); each channel escapes them.

/** The chain's coin has 18 decimals on every EVM chain (wei). */
const NATIVE_DECIMALS = 18;
const SYMBOL_CHARS = 32;
const NAME_CHARS = 64;

const TYPE_TEXT: Record<List, string> = { native: 'native transaction', erc20: 'ERC-20 transfer', internal: 'internal transaction' };
const LIST_PLURAL: Record<List, string> = { native: 'native transactions', erc20: 'ERC-20 transfers', internal: 'internal transactions' };

export function directionOf(a: Placed, address: string): Direction | undefined {
  if (a.from === address && a.to === address) return 'self';
  if (a.from === address) return 'out';
  if (a.to === address) return 'in';
  // A native transaction listed for a transfer inside it: that transfer is in its own list.
  return undefined;
}

/** The event for one new item, or undefined when the rule's filters leave it out. */
export function activityAlert(a: Placed, address: string, s: Spec): AlertDraft | undefined {
  const direction = directionOf(a, address);
  if (!direction || !s.directions.includes(direction)) return undefined;
  const tokenKey = a.token ? a.token.address.toLowerCase() : 'native';
  if (a.token && s.tokens && !s.tokens.includes(tokenKey)) return undefined;
  const decimals = a.token ? a.token.decimals : NATIVE_DECIMALS;
  const min = s.minValue?.[tokenKey];
  if (min !== undefined && provablyBelow(a.value, min, decimals)) return undefined;

  const symbol = a.token ? clip(a.token.symbol, SYMBOL_CHARS) || clip(a.token.name, NAME_CHARS) || a.token.address : nativeSymbol(s);
  const amount = amountText(a.value, decimals, symbol);
  const counterparty = direction === 'in' ? a.from : a.to;
  const movement = direction === 'in' ? `received ${amount} from ${counterparty}` : direction === 'out' ? `sent ${amount} to ${counterparty}` : `sent ${amount} to itself`;
  const notes = [a.list === 'internal' ? 'internal transaction' : '', a.failed ? (a.list === 'internal' ? 'reverted' : 'failed transaction') : ''].filter(Boolean);
  return {
    status: 'event',
    news: 'neutral',
    subject: a.txHash,
    summary: `${address} ${movement}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`,
    labels: { chain_id: s.chainId, address, direction, list: a.list, token: tokenKey, tx_hash: a.txHash },
    details: {
      Address: address,
      Chain: s.chainId,
      Direction: direction,
      Amount: amount,
      Token: a.token ? `${clip(a.token.name, NAME_CHARS)} (${clip(a.token.symbol, SYMBOL_CHARS)}) ${a.token.address}` : `${symbol} (the chain's coin)`,
      Counterparty: direction === 'self' ? address : counterparty,
      Type: a.list === 'erc20' ? `${TYPE_TEXT.erc20} (log ${a.logIndex})` : a.list === 'internal' ? `${TYPE_TEXT.internal} (${a.callType})` : TYPE_TEXT.native,
      ...(a.failed ? { Status: a.list === 'internal' ? 'reverted: nothing moved' : 'failed: nothing moved' } : {}),
      Transaction: a.txHash,
      Block: String(a.block),
      Time: isoSeconds(a.timestamp),
    },
  };
}

/** A block holding more than maxPages pages of one list: the rest of it is not read, and the user is told. */
export function skippedAlert(address: string, list: List, block: number, s: Spec): AlertDraft {
  return {
    status: 'event',
    severity: 'warning',
    news: 'bad',
    subject: address,
    summary: `${address}: block ${block} holds more ${LIST_PLURAL[list]} than ${s.maxPages} page(s) show; the rest of that block is not shown (raise maxPages)`,
    labels: { chain_id: s.chainId, address, list, block: String(block) },
    details: { Address: address, Chain: s.chainId, List: LIST_PLURAL[list], Block: String(block), 'Pages read': String(s.maxPages) },
  };
}

export function nativeSymbol(s: Spec): string {
  return s.nativeSymbol ?? 'AVAX';
}

/** Below the minimum, exactly; an amount or decimals that cannot be read are never provably below: reported. */
function provablyBelow(value: string, min: string, decimals: number): boolean {
  if (!/^\d+$/.test(value) || !usableDecimals(decimals)) return false;
  return BigInt(value) < ceilUnits(min, decimals);
}

function amountText(value: string, decimals: number, symbol: string): string {
  if (!/^\d+$/.test(value)) return `an unknown amount of ${symbol}`;
  if (!usableDecimals(decimals)) return `${value} base units of ${symbol}`;
  return `${formatUnits(BigInt(value), decimals)} ${symbol}`;
}

/** At most `max` characters of chain text, the last a visible … when cut. */
function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
