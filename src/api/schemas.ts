import { z } from 'zod';
import { pageOf } from './parse.js';

// Tolerant readers of the live service's answers. The contract is Ava Labs' SDK generated
// from the live specification (@avalanche-sdk/chainkit; test/contract/ holds avawatch to
// it). Each schema declares only the fields avawatch reads, with the contract's types:
// a field avawatch does not read can never fail a response, nor stays in memory (unknown
// fields are dropped as the answer is read), and status values the service adds later parse
// as their own text.
//
// The area readers' schemas are here (src/api/data/). A kind that alone reads an endpoint
// may keep its schema in its own folder instead, built from the field readers below, and
// read it through the generic `list` or `get` of the endpoint's area (data/reader.ts).

/**
 * nAVAX amounts, heights: the contract says "string" (decimal digits in practice). Kept as
 * text so nothing is rounded; read them with `navax()` (src/base/amount.ts), which tolerates the rest.
 */
export const amount = z.string();

/**
 * Seconds since the epoch; the contract says "number" (an integer in practice). A value past
 * 1e12 can only be milliseconds (1e12 s is the year 33658): read as seconds. Any number is
 * accepted; what is implausible is the reading kind's to judge (validators.ts).
 */
export const seconds = z.number().transform((v) => (v > 1e12 && v < 1e15 ? Math.floor(v / 1000) : v));

/** A status the service writes in lower case: another case of the same word is the same status. */
export const status = z.string().transform((v) => v.toLowerCase());

/**
 * A figure a rule shows but does not need: one in another shape than the contract's is read
 * as absent, never a failed answer (a node's health must not blind its status).
 */
export const optionalNumber = z.number().optional().catch(undefined);
export const optionalAmount = amount.optional().catch(undefined);

// ---- Validators: one item per validation period, keyed by validationStatus.
export const validator = z.object({
  txHash: z.string(),
  nodeId: z.string(),
  subnetId: z.string(),
  validationStatus: status,
  startTimestamp: seconds,
  endTimestamp: seconds,
  // Active periods: the service's own node's view, at its last poll.
  amountStaked: optionalAmount,
  amountDelegated: optionalAmount,
  delegationCapacity: optionalAmount,
  uptimePerformance: optionalNumber,
  avalancheGoVersion: z.string().optional().catch(undefined),
  // The BLS key the validation registered (node-health compares the node's own).
  blsCredentials: z.object({ publicKey: z.string().optional().catch(undefined) }).optional().catch(undefined),
  validatorHealth: z
    .object({
      reachabilityPercent: optionalNumber,
      benchedPChainRequestsPercent: optionalNumber,
      benchedXChainRequestsPercent: optionalNumber,
      benchedCChainRequestsPercent: optionalNumber,
    })
    .optional()
    .catch(undefined),
  potentialRewards: z.object({ validationRewardAmount: optionalAmount, delegationRewardAmount: optionalAmount }).optional().catch(undefined),
  // Completed periods: what was paid (a validation reward of 0: not rewarded).
  rewards: z.object({ validationRewardAmount: optionalAmount, delegationRewardAmount: optionalAmount, rewardTxHash: z.string().optional().catch(undefined) }).optional().catch(undefined),
});
export type Validator = z.output<typeof validator>;

export const validatorsPage = pageOf('validators', validator);

/**
 * One active primary validator of the whole-network sweep (network-baseline): only what the
 * distribution reads. Every figure is optional: an item without one is left out of that
 * figure's distribution, never the sweep's count.
 */
export const activeValidator = z.object({
  nodeId: z.string(),
  amountStaked: optionalAmount,
  amountDelegated: optionalAmount,
  uptimePerformance: optionalNumber,
  avalancheGoVersion: z.string().optional().catch(undefined),
  validatorHealth: validator.shape.validatorHealth,
});
export type ActiveValidator = z.output<typeof activeValidator>;

/** The one error shape of every error status. */
export const errorBody = z.object({
  message: z.union([z.string(), z.array(z.string())]).optional(),
  error: z.string().optional(),
  statusCode: z.number().optional(),
});

// ---- Delegators: keyed by delegationStatus; only completed ones carry the real rewards.
export const delegator = z.object({
  txHash: z.string(),
  nodeId: z.string(),
  rewardAddresses: z.array(z.string()),
  amountDelegated: amount,
  startTimestamp: seconds,
  endTimestamp: seconds,
  delegationStatus: status,
  grossReward: amount.optional(),
  netReward: amount.optional(),
});
export type Delegator = z.output<typeof delegator>;
export const delegatorsPage = pageOf('delegators', delegator);

// ---- L1 validators: remainingBalance (nAVAX) is a JSON number here, not a string.
export const l1Validator = z.object({
  validationId: z.string(),
  nodeId: z.string(),
  subnetId: z.string(),
  // Whole nAVAX as text; a number past 2^53 is as exact as the service sent it.
  remainingBalance: z.number().transform((n) => BigInt(Math.trunc(n)).toString()),
  // The validator's consensus weight (the L1's weight shares); 0 for one removed. Absent or odd:
  // unknown, never a failed page (the balance read does not need it).
  weight: z.unknown().transform((v) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined)),
});
export type L1Validator = z.output<typeof l1Validator>;
export const l1ValidatorsPage = pageOf('validators', l1Validator);

// ---- ICM messages: keyed by status; delivered_source_not_indexed has no sourceTransaction.
export const icmMessage = z.object({
  messageId: z.string(),
  status: z.string(),
  destinationBlockchainId: z.string(),
  destinationEvmChainId: z.string().optional(),
  sourceTransaction: z.object({ timestamp: seconds }).optional(),
  // Token name and symbol come from contracts anyone can deploy: hostile text.
  rewardDetails: z.object({ name: z.string().optional(), symbol: z.string().optional() }).optional(),
});
export type IcmMessage = z.output<typeof icmMessage>;
export const icmMessagesPage = pageOf('messages', icmMessage);

// ---- Operations (transaction export).
export const operation = z.object({
  operationId: z.string(),
  operationStatus: z.string(),
  message: z.string().optional(),
  metadata: z
    .looseObject({ code: z.string().optional(), downloadUrl: z.string().optional(), nextDate: z.string().optional() })
    .optional(),
  // Seconds or milliseconds: the unit is undocumented.
  createdAtTimestamp: seconds,
});
export type Operation = z.output<typeof operation>;

// ---- Chain metrics (Metrics API).
export const metricPoint = z.object({ value: z.number(), timestamp: seconds });
export const metricsPage = pageOf('results', metricPoint);
export type MetricPoint = z.output<typeof metricPoint>;

// ---- Blocks a node proposed on a primary-network chain (newest first).
export const proposedBlock = z.object({
  blockNumber: z.string(),
  // As stamped: block-production reads the unit itself and says so in its alert (times.ts).
  blockTimestamp: z.number(),
});
export type ProposedBlock = z.output<typeof proposedBlock>;
export const proposedBlocksPage = pageOf('blocks', proposedBlock);

// ---- Signature aggregator: only that a signed message came back is read.
export const signatureAggregation = z.object({ signedMessage: z.string() });
// ---- EVM address activity (native transactions, ERC-20 transfers, internal transactions).
// Heights and values are decimal strings; token name and symbol come from contracts anyone
// can deploy: hostile text, and decimals may be anything such a contract says.
const richAddress = z.object({ address: z.string() });
const inBlock = { blockNumber: z.string(), blockTimestamp: seconds, txHash: z.string() };

export const evmTransaction = z.object({
  nativeTransaction: z.object({ ...inBlock, txStatus: z.string(), from: richAddress, to: richAddress, value: amount }),
});
export type EvmTransaction = z.output<typeof evmTransaction>;
export const evmTransactionsPage = pageOf('transactions', evmTransaction);

export const erc20Transfer = z.object({
  ...inBlock,
  from: richAddress,
  to: richAddress,
  logIndex: z.number(),
  value: amount,
  erc20Token: z.object({ address: z.string(), name: z.string(), symbol: z.string(), decimals: z.number() }),
});
export type Erc20Transfer = z.output<typeof erc20Transfer>;
export const erc20TransfersPage = pageOf('transactions', erc20Transfer);

export const internalTransaction = z.object({ ...inBlock, from: richAddress, to: richAddress, value: amount, internalTxType: z.string(), isReverted: z.boolean() });
export type InternalTransaction = z.output<typeof internalTransaction>;
export const internalTransactionsPage = pageOf('transactions', internalTransaction);
