import { z } from 'zod';

// Response schemas follow the live Data API (shared/api-notes.md), not only the short
// interface: unknown fields pass through, unknown status values parse as themselves, and
// amounts stay decimal strings (never floats) so nothing is rounded on the way to SQLite.

/** nAVAX and other big integers: decimal strings; a plain JSON number only while it is exact. */
export const decimalInteger = z.union([
  z.string().regex(/^\d+$/, 'expected a string of decimal digits'),
  z
    .number()
    .int()
    .nonnegative()
    .refine(Number.isSafeInteger, 'number too large to be exact')
    .transform(String),
]);

/** Fees such as delegationFee: "2.0000". */
export const decimalString = z.union([
  z.string().regex(/^\d+(\.\d+)?$/, 'expected a decimal string'),
  z.number().nonnegative().transform(String),
]);

export const unixSeconds = z.number().int().nonnegative();

/**
 * A union keyed by a status field whose value set grows over time: a known status parses
 * with its own schema, any other value with the fallback (which keeps the status as text).
 */
export function statusUnion<
  K extends string,
  const S extends Record<string, z.ZodType>,
  F extends z.ZodType,
>(key: K, variants: S, fallback: F) {
  return z.looseObject({ [key]: z.string() } as Record<K, z.ZodString>).transform((value, ctx) => {
    const status = value[key] as string;
    const schema: z.ZodType = Object.hasOwn(variants, status) ? (variants[status] as z.ZodType) : fallback;
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data as z.output<S[keyof S]> | z.output<F>;
    for (const issue of parsed.error.issues) {
      ctx.addIssue({ ...issue, code: 'custom', message: issue.message, path: issue.path } as never);
    }
    return z.NEVER;
  });
}

const blsCredentials = z.looseObject({ publicKey: z.string().optional(), proofOfPossession: z.string().optional() });

const validatorCommon = {
  txHash: z.string(),
  nodeId: z.string(),
  subnetId: z.string(),
  amountStaked: decimalInteger,
  startTimestamp: unixSeconds,
  endTimestamp: unixSeconds,
  delegationFee: decimalString.optional(),
  blsCredentials: blsCredentials.optional(),
};

const rewards = z.looseObject({
  validationRewardAmount: decimalInteger.optional(),
  delegationRewardAmount: decimalInteger.optional(),
  rewardAddresses: z.array(z.string()).optional(),
  rewardTxHash: z.string().optional(),
});

const geolocation = z.looseObject({
  city: z.string().optional(),
  country: z.string().optional(),
  countryCode: z.string().optional(),
  latitude: z.number().optional(),
  longitude: z.number().optional(),
});

export const activeValidator = z.looseObject({
  ...validatorCommon,
  validationStatus: z.literal('active'),
  stakePercentage: z.number().optional(),
  delegatorCount: z.number().int().optional(),
  amountDelegated: decimalInteger.optional(),
  delegationCapacity: decimalInteger.optional(),
  avalancheGoVersion: z.string().optional(),
  uptimePerformance: z.looseObject({ avgUptime: z.number().optional() }).optional(),
  potentialRewards: z
    .looseObject({ validationRewardAmount: decimalInteger.optional(), delegationRewardAmount: decimalInteger.optional() })
    .optional(),
  validatorHealth: z.looseObject({ reachabilityPercent: z.number().optional() }).optional(),
  // Live service: required but may be null (nodes without a known location).
  geolocation: geolocation.nullable().optional(),
});

export const completedValidator = z.looseObject({
  ...validatorCommon,
  validationStatus: z.literal('completed'),
  delegatorCount: z.number().int().optional(),
  amountDelegated: decimalInteger.optional(),
  rewards: rewards.optional(),
});

export const pendingValidator = z.looseObject({ ...validatorCommon, validationStatus: z.literal('pending') });

export const removedValidator = z.looseObject({
  ...validatorCommon,
  validationStatus: z.literal('removed'),
  removeTxHash: z.string().optional(),
  removeTimestamp: unixSeconds.optional(),
});

/** A status the service added after this was written: kept as its own text. */
export const otherValidator = z.looseObject({ ...validatorCommon, validationStatus: z.string() });

export const validator = statusUnion(
  'validationStatus',
  { active: activeValidator, completed: completedValidator, pending: pendingValidator, removed: removedValidator },
  otherValidator,
);
export type Validator = z.output<typeof validator>;

export const validatorsPage = z.looseObject({
  validators: z.array(validator),
  nextPageToken: z.string().optional(),
});

/** The one error shape of every error status. */
export const errorBody = z.looseObject({
  message: z.union([z.string(), z.array(z.string())]).optional(),
  error: z.string().optional(),
  statusCode: z.number().optional(),
});

// ---- Delegators: keyed by delegationStatus.
const delegatorCommon = {
  txHash: z.string(),
  nodeId: z.string(),
  rewardAddresses: z.array(z.string()),
  amountDelegated: decimalInteger,
  delegationFee: decimalString.optional(),
  startTimestamp: unixSeconds,
  endTimestamp: unixSeconds,
};
export const completedDelegator = z.looseObject({
  ...delegatorCommon,
  delegationStatus: z.literal('completed'),
  grossReward: decimalInteger,
  netReward: decimalInteger,
});
const openDelegator = {
  ...delegatorCommon,
  estimatedGrossReward: decimalInteger.optional(),
  estimatedNetReward: decimalInteger.optional(),
};
export const activeDelegator = z.looseObject({ ...openDelegator, delegationStatus: z.literal('active') });
export const pendingDelegator = z.looseObject({ ...openDelegator, delegationStatus: z.literal('pending') });
export const otherDelegator = z.looseObject({ ...delegatorCommon, delegationStatus: z.string() });
export const delegator = statusUnion(
  'delegationStatus',
  { completed: completedDelegator, active: activeDelegator, pending: pendingDelegator },
  otherDelegator,
);
export type Delegator = z.output<typeof delegator>;
export const delegatorsPage = z.looseObject({ delegators: z.array(delegator), nextPageToken: z.string().optional() });

// ---- L1 validators: numbers for weight, balance (nAVAX) and creation; blockHeight a string.
const owner = z.looseObject({ addresses: z.array(z.string()), threshold: z.number().int() });
export const l1Validator = z.looseObject({
  validationId: z.string(),
  validationIdHex: z.string().optional(),
  nodeId: z.string(),
  subnetId: z.string(),
  weight: z.number().int().nonnegative(),
  remainingBalance: z.number().int().nonnegative().refine(Number.isSafeInteger, 'balance too large to be exact').transform(String),
  creationTimestamp: unixSeconds,
  blsCredentials: z.looseObject({}).optional(),
  remainingBalanceOwner: owner.optional(),
  deactivationOwner: owner.optional(),
});
export type L1Validator = z.output<typeof l1Validator>;
export const l1ValidatorsPage = z.looseObject({
  validators: z.array(l1Validator),
  blockHeight: z.string().optional(),
  nextPageToken: z.string().optional(),
});

// ---- ICM messages: keyed by status; delivered_source_not_indexed has no sourceTransaction.
const evmTx = z.looseObject({ txHash: z.string(), timestamp: unixSeconds, gasSpent: decimalInteger.optional() });
const icmCommon = {
  messageId: z.string(),
  icmContractAddress: z.string().optional(),
  sourceBlockchainId: z.string(),
  destinationBlockchainId: z.string(),
  sourceEvmChainId: z.string().optional(),
  destinationEvmChainId: z.string().optional(),
  messageNonce: z.string().optional(),
  from: z.string(),
  to: z.string(),
  data: z.string().optional(),
  messageExecuted: z.boolean().optional(),
  receipts: z.array(z.looseObject({})).optional(),
  receiptDelivered: z.boolean().optional(),
  // Token name and symbol come from contracts anyone can deploy: hostile text.
  rewardDetails: z
    .looseObject({ address: z.string().optional(), name: z.string().optional(), symbol: z.string().optional(), value: decimalInteger.optional() })
    .optional(),
};
export const pendingIcm = z.looseObject({ ...icmCommon, status: z.literal('pending'), sourceTransaction: evmTx });
export const deliveredIcm = z.looseObject({
  ...icmCommon,
  status: z.literal('delivered'),
  sourceTransaction: evmTx,
  destinationTransaction: evmTx.extend({ rewardRedeemer: z.string().optional(), delivererAddress: z.string().optional() }),
});
export const deliveredSourceNotIndexedIcm = z.looseObject({
  ...icmCommon,
  status: z.literal('delivered_source_not_indexed'),
  destinationTransaction: evmTx.optional(),
});
export const otherIcm = z.looseObject({ ...icmCommon, status: z.string(), sourceTransaction: evmTx.optional() });
export const icmMessage = statusUnion(
  'status',
  { pending: pendingIcm, delivered: deliveredIcm, delivered_source_not_indexed: deliveredSourceNotIndexedIcm },
  otherIcm,
);
export type IcmMessage = z.output<typeof icmMessage>;
export const icmMessagesPage = z.looseObject({ messages: z.array(icmMessage), nextPageToken: z.string().optional() });

// ---- Operations (transaction export).
export const OPERATION_STATUSES = ['RUNNING', 'COMPLETED', 'COMPLETED_WITH_WARNING', 'FAILED'] as const;
/** Seconds or milliseconds (undocumented): above 1e12 it is milliseconds. */
const epochSeconds = z.number().nonnegative().transform((v) => (v > 1e12 ? Math.floor(v / 1000) : v));
export const operation = z.looseObject({
  operationId: z.string(),
  operationType: z.string(),
  operationStatus: z.string(),
  message: z.string().optional(),
  metadata: z
    .looseObject({ code: z.string().optional(), downloadUrl: z.string().optional(), nextDate: z.string().optional() })
    .optional(),
  createdAtTimestamp: epochSeconds,
  updatedAtTimestamp: epochSeconds.optional(),
});
export type Operation = z.output<typeof operation>;

// ---- Chain metrics (Metrics API).
export const metricPoint = z.looseObject({ value: z.number(), timestamp: unixSeconds });
export const metricsPage = z.looseObject({ results: z.array(metricPoint), nextPageToken: z.string().optional() });
export type MetricPoint = z.output<typeof metricPoint>;
