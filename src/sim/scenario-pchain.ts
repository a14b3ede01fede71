import { z } from 'zod';
import type { Network } from '../api/data/reader.js';
import type { World } from './world.js';

// The scenario keys of the simulated P-chain (docs/simulator.md): staking transactions and
// subnets. Built from scenario.ts's own readers of times, amounts and networks.

/** The staking types of the SDK's PChainTransactionType. */
const STAKING_TYPES = ['AddPermissionlessDelegatorTx', 'AddPermissionlessValidatorTx', 'AddDelegatorTx', 'AddValidatorTx', 'AddSubnetValidatorTx'] as const;
/** Subnet-EVM's VM id. */
const SUBNET_EVM = 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy';

const address = z.string().regex(/^([PX]-)?(avax|fuji|local)1[0-9a-z]{6,}$/, 'expected a P-chain address such as avax1…').transform((a) => a.replace(/^[PX]-/, ''));
const manager = z.strictObject({ blockchainId: z.string(), contractAddress: z.string() });

export function pchainKeys<W extends z.ZodType<{ relative: boolean; ms: number }>, A extends z.ZodType<bigint>, N extends z.ZodType<Network>>(when: W, avax: A, network: N) {
  const blockchain = z.strictObject({
    blockchainId: z.string(),
    name: z.string(),
    vmId: z.string().default(SUBNET_EVM),
    evmChainId: z.number().int().positive().optional(),
    created: when.optional(),
  });
  const staking = z.strictObject({
    network,
    txHash: z.string(),
    txType: z.enum(STAKING_TYPES).default('AddPermissionlessDelegatorTx'),
    addresses: z.array(address).min(1),
    nodeId: z.string(),
    amount: avax,
    start: when,
    end: when,
    /** The block that accepted it; default: its start. */
    block: when.optional(),
    rewardTxHash: z.string().optional(),
  });
  const subnet = z.strictObject({
    network,
    subnetId: z.string(),
    /** Default: 30 days before the start. */
    created: when.optional(),
    owners: z.array(address).min(1),
    threshold: z.number().int().min(1).default(1),
    locktime: z.number().int().min(0).default(0),
    isL1: z.boolean().default(false),
    conversionTx: z.string().optional(),
    manager: manager.optional(),
    blockchains: z.array(blockchain).default([]),
  });
  const subnetChange = z
    .strictObject({
      subnetId: z.string(),
      owners: z.array(address).min(1).optional(),
      threshold: z.number().int().min(1).optional(),
      locktime: z.number().int().min(0).optional(),
      convertToL1: z.strictObject({ txHash: z.string(), manager: manager.optional() }).optional(),
      manager: manager.optional(),
      addBlockchain: blockchain.optional(),
      listed: z.boolean().optional(),
    })
    .refine((c) => Object.keys(c).length > 1, { message: 'nothing to change: give owners, threshold, locktime, convertToL1, manager, addBlockchain or listed' });
  return {
    stakingTransactions: z.array(staking).optional(),
    subnets: z.array(subnet).optional(),
    subnet: subnetChange.optional(),
  };
}

type Keys = ReturnType<typeof pchainKeys>;
export type PChainChange = { [K in keyof Keys]?: z.output<Keys[K]> };

/** Applies the P-chain part of a change; `at` turns a scenario time into unix seconds. */
export function applyPChainChange(world: World, change: PChainChange, at: (w: { relative: boolean; ms: number }) => number): void {
  for (const t of change.stakingTransactions ?? []) {
    const { network, start, end, block, amount, rewardTxHash, ...rest } = t;
    world.pchain.addStaking(network, {
      ...rest,
      amount: amount.toString(),
      startTimestamp: at(start),
      endTimestamp: at(end),
      blockTimestamp: at(block ?? start),
      ...(rewardTxHash ? { rewardTxHash } : {}),
    });
  }
  for (const s of change.subnets ?? []) {
    const { network, created, conversionTx, manager: m, blockchains, ...rest } = s;
    const createBlockTimestamp = at(created ?? { relative: true, ms: -30 * 86_400_000 });
    world.pchain.addSubnet(network, {
      ...rest,
      createBlockTimestamp,
      ...(conversionTx ? { conversionTx } : {}),
      ...(m ? { manager: m } : {}),
      blockchains: blockchains.map(({ created: c, evmChainId, ...b }) => ({ ...b, createBlockTimestamp: c ? at(c) : createBlockTimestamp, ...(evmChainId !== undefined ? { evmChainId } : {}) })),
    });
  }
  if (change.subnet) {
    const { subnetId, addBlockchain, ...rest } = change.subnet;
    const now = world.clock.now();
    world.pchain.changeSubnet(
      subnetId,
      {
        ...rest,
        ...(addBlockchain
          ? {
              addBlockchain: {
                blockchainId: addBlockchain.blockchainId,
                name: addBlockchain.name,
                vmId: addBlockchain.vmId,
                createBlockTimestamp: addBlockchain.created ? at(addBlockchain.created) : now,
                ...(addBlockchain.evmChainId !== undefined ? { evmChainId: addBlockchain.evmChainId } : {}),
              },
            }
          : {}),
      },
    );
  }
}
