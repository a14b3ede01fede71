import { z } from 'zod';
import { TOKEN_AMOUNT } from '../../base/token-amount.js';

export const LISTS = ['native', 'erc20', 'internal'] as const;
export type List = (typeof LISTS)[number];
export const DIRECTIONS = ['in', 'out', 'self'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** The C-chain's ids (EVM chain ids and blockchain ids, mainnet and Fuji): AVAX is their coin. */
export const C_CHAINS = new Set(['43114', '43113', '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5', 'yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp']);

const evmAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'expected an EVM address: 0x and 40 hex digits')
  .transform((a) => a.toLowerCase());

const unique = (list: readonly string[]): boolean => new Set(list).size === list.length;

/** Token units as written ("1000", 0.5): exact, compared in each token's own decimals. */
const tokenUnits = z.union([z.string(), z.number().nonnegative()]).transform((v, ctx) => {
  const text = String(v).trim();
  if (TOKEN_AMOUNT.test(text)) return text;
  ctx.addIssue({ code: 'custom', message: `"${text}" is not an amount in token units such as "1000" or "0.5" (quote large or very small numbers)` });
  return z.NEVER;
});

export const spec = z
  .strictObject({
    /** An EVM chain id (43114) or the chain's blockchain id. */
    chainId: z.union([
      z.number().int().positive().transform(String),
      z.string().regex(/^(\d+|[1-9A-HJ-NP-Za-km-z]{40,60})$/, 'expected an EVM chain id such as 43114, or a blockchain id'),
    ]),
    addresses: z.array(evmAddress).min(1).refine(unique, 'an address is listed twice'),
    /** Which lists to read: each is one call per address per poll. */
    lists: z.array(z.enum(LISTS)).min(1).refine(unique, 'a list is named twice').default([...LISTS]),
    /** Report only these directions, relative to the watched address. */
    directions: z.array(z.enum(DIRECTIONS)).min(1).refine(unique, 'a direction is named twice').default([...DIRECTIONS]),
    /** ERC-20 transfers of these token contracts only (native and internal transactions are not filtered). */
    tokens: z.array(evmAddress).min(1).optional(),
    /** The least amount reported, in token units, per token: `native` or a token contract. Tokens not named: any amount. */
    minValue: z
      .record(z.string().regex(/^(native|0x[0-9a-fA-F]{40})$/, 'expected "native" or a token contract address'), tokenUnits)
      .transform((m) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k.toLowerCase(), v])))
      .optional(),
    /** The chain's coin as alerts name it; AVAX on the C-chain. */
    nativeSymbol: z.string().min(1).max(20).optional(),
    /** Pages (100 items each) read per list and address in one poll; what is left is read at the next. */
    maxPages: z.number().int().min(1).max(20).default(3),
  })
  .superRefine((s, ctx) => {
    if (s.nativeSymbol === undefined && !C_CHAINS.has(s.chainId)) {
      ctx.addIssue({ code: 'custom', path: ['nativeSymbol'], message: `set nativeSymbol: the coin of chain ${s.chainId} is not known (AVAX is assumed only on the C-chain)` });
    }
  });
export type Spec = z.output<typeof spec>;

/** Keys already reported in one block: the block a read starts (or ends) at is read again. */
const boundary = z.array(z.string());

/**
 * One list of one address. Blocks below `from` are read, save the keys named at `from`;
 * a `gap` is older activity a read cut short left behind (read before anything newer).
 */
export const state = z.object({
  address: z.string(),
  list: z.enum(LISTS),
  /** The next read's startBlock (inclusive); 0: from the chain's start. */
  from: z.number(),
  fromKeys: boundary,
  /** Blocks [from, to) still to read; keys at `to - 1` (and at `from`) already reported. */
  gap: z.object({ from: z.number(), fromKeys: boundary, to: z.number(), toKeys: boundary }).optional(),
  /** Newest block and block time of anything the list showed (filtered out or not). */
  lastBlock: z.number().optional(),
  lastTimestamp: z.number().optional(),
  /**
   * Keys reported (or seen at the baseline) lately, oldest first, at most RECENT_KEYS: one the
   * service lists again at another block (a reorg, a re-index) is not reported twice.
   */
  recent: z.array(z.string()).optional(),
  /** The last read stopped at maxPages: more is waiting. */
  behind: z.boolean().optional(),
});
export type State = z.output<typeof state>;
