import { z } from 'zod';
import { parseUnits } from '../base/token-amount.js';
import { blockAt, INTERNAL_TX_TYPES } from './evm.js';
import type { World } from './world.js';

// The scenario key of the simulated EVM address activity (src/sim/evm.ts, docs/simulator.md):
// `evmTransactions:`, each transaction with its ERC-20 transfers and internal calls. Built from
// scenario.ts's own reader of times.

type When = { relative: boolean; ms: number };

export function evmKeys<W extends z.ZodType<When>>(when: W) {
  const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected an EVM address: 0x and 40 hex digits');
  /** Token units as written ("1.5", 25); turned into base units with the token's decimals. */
  const units = z.union([z.string(), z.number().nonnegative()]).transform(String);
  const evmToken = z.strictObject({
    address: evmAddress,
    name: z.string().default('Test Token'),
    symbol: z.string().default('TEST'),
    decimals: z.number().int().min(0).max(36).default(18),
  });
  const evmTransaction = z
    .strictObject({
      chainId: z.union([z.string(), z.number()]).transform(String).default('43114'),
      txHash: z.string().optional(),
      from: evmAddress,
      to: evmAddress,
      /** The chain's coin (18 decimals), in whole units. */
      value: units.default('0'),
      /** Block time; default: the simulated now. */
      at: when.optional(),
      /** Default: the block of its time (one every 2 s). */
      block: z.number().int().positive().optional(),
      status: z.enum(['success', 'failed']).default('success'),
      erc20: z.array(z.strictObject({ token: evmToken, from: evmAddress, to: evmAddress, value: units })).default([]),
      internal: z
        .array(z.strictObject({ from: evmAddress, to: evmAddress, value: units, type: z.enum(INTERNAL_TX_TYPES).default('CALL'), reverted: z.boolean().default(false) }))
        .default([]),
    })
    .superRefine((t, ctx) => {
      const check = (value: string, decimals: number, path: Array<string | number>) => {
        try {
          parseUnits(value, decimals);
        } catch (err) {
          ctx.addIssue({ code: 'custom', path, message: (err as Error).message });
        }
      };
      check(t.value, 18, ['value']);
      t.erc20.forEach((e, i) => check(e.value, e.token.decimals, ['erc20', i, 'value']));
      t.internal.forEach((e, i) => check(e.value, 18, ['internal', i, 'value']));
    });

  return { evmTransactions: z.array(evmTransaction).optional() };
}

type Keys = ReturnType<typeof evmKeys>;
export type EvmChange = { [K in keyof Keys]?: z.output<Keys[K]> };

/** Applies the EVM part of a change; `at` turns a scenario time into unix seconds. */
export function applyEvmChange(world: World, change: EvmChange, at: (w: When) => number): void {
  for (const t of change.evmTransactions ?? []) {
    const timestamp = t.at ? at(t.at) : world.clock.now();
    world.evm.add({
      chainId: t.chainId,
      txHash: t.txHash,
      block: t.block ?? blockAt(timestamp),
      timestamp,
      from: t.from,
      to: t.to,
      value: parseUnits(t.value, 18).toString(),
      failed: t.status === 'failed',
      erc20: t.erc20.map((e) => ({ ...e, value: parseUnits(e.value, e.token.decimals).toString() })),
      internal: t.internal.map((e) => ({ ...e, value: parseUnits(e.value, 18).toString() })),
    });
  }
}
