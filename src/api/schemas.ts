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
