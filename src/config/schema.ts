import { z } from 'zod';
import { channels } from '../channels/registry.js';
import type { ReceiverBase } from '../channels/types.js';
import { digestSchema } from '../channels/digest.js';
import { ruleKinds } from '../rules/registry.js';
import { SEVERITIES } from '../base/types.js';
import { METRICS_API_BUDGET, TIERS, type Tier } from '../api/limiter.js';
import { durationMs, httpUrl, labelName, labels, name, SECRET_KEYS, secretPostgresUrl, secretString, secretUrl } from '../base/fields.js';
import { inventory } from '../inventory/schema.js';
import { upgradeTimes } from '../rules/network.js';

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

const budgetLimits = z.strictObject({ perMinute: z.number().int().positive(), perDay: z.number().int().positive() });
const budget = z.union([z.enum(Object.keys(TIERS) as [Tier, ...Tier[]]), budgetLimits], {
  error: (issue) =>
    typeof issue.input === 'object' && issue.input !== null
      ? 'expected {perMinute: N, perDay: M}: both whole numbers of compute units above 0'
      : `expected a tier (${Object.keys(TIERS).join(', ')}) or {perMinute, perDay} in compute units`,
});

const api = z.strictObject({
  dataUrl: httpUrl.default('https://data-api.avax.network'),
  metricsUrl: httpUrl.default('https://metrics.avax.network'),
  apiKey: secretString.optional(),
  /** A file holding the key (e.g. a container secret); instead of apiKey. */
  apiKeyFile: z.string().min(1).optional(),
  apiKeyHeader: z.string().min(1).default('x-glacier-api-key'),
  /** Whole request, headers and body. */
  timeout: durationMs.default(15_000),
  connectTimeout: durationMs.default(5_000),
  maxResponseBytes: z.number().int().positive().default(5 * 1024 * 1024),
  retries: z.number().int().min(0).max(10).default(3),
  retryBackoff: durationMs.default(500),
  retryBackoffMax: durationMs.default(20_000),
  maxRetryAfter: durationMs.default(60_000),
  pageSize: z.number().int().min(1).max(100).default(100),
  maxPages: z.number().int().min(1).max(1000).default(20),
  /** The Data API plan in compute units: a tier name, or its limits. Default: no key's. */
  budget: budget.default('unauthenticated'),
  /** The Metrics API's own budget. */
  metricsBudget: budgetLimits.default(METRICS_API_BUDGET),
  /** Identical GETs by different rules within this window are made once; 0s: never shared. */
  dedupeWindow: durationMs.default(5_000),
});

/**
 * A bearer token (Prometheus `authorization`), basic credentials (a browser, Prometheus
 * `basic_auth`), or both; each secret also from a file. What must be set is checked after
 * the files are read (load.ts).
 */
const serverAuth = z.strictObject({
  token: secretString.optional(),
  tokenFile: z.string().min(1).optional(),
  username: z.string().min(1).regex(/^[^:]*$/, 'a basic-auth username cannot contain ":"').optional(),
  password: secretString.optional(),
  passwordFile: z.string().min(1).optional(),
});
export type ServerAuthConfig = z.output<typeof serverAuth>;

const delivery = z.strictObject({
  /** First retry waits up to this long (full jitter), doubling each time up to backoffMax. */
  backoff: durationMs.default(1_000),
  backoffMax: durationMs.default(300_000),
  /** A provider asking (429) to wait longer gets this wait, and the attempt counts as failed. */
  maxRetryAfter: durationMs.default(600_000),
  /** A notification still undelivered after this long is dead-lettered. */
  maxAge: durationMs.default(86_400_000),
  /** Every attempt to a receiver failing this long: the heartbeat fails and /readyz says so, naming it. */
  failingAfter: durationMs.default(600_000),
  /** A dead-lettered notification fails the heartbeat and /readyz until a later one to its receiver is delivered, or this long. */
  deadLetterHold: durationMs.refine((ms) => ms >= 60_000, 'must be at least 1m').default(86_400_000),
});

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
const hhmm = z.string().regex(/^([01]\d|2[0-4]):[0-5]\d$/, 'expected HH:MM (UTC)');

/** A named recurring window: on these weekdays (or every day), between these times, in `location`. */
const timeInterval = z.strictObject({
  name,
  weekdays: z
    .array(z.string().refine((d) => d.split(':').every((p) => (WEEKDAYS as readonly string[]).includes(p)), 'expected a weekday such as monday, or a range such as monday:friday'))
    .optional(),
  times: z
    .array(z.strictObject({ start: hhmm, end: hhmm }).refine((t) => t.start < t.end, 'start must be before end: split a window across midnight in two (22:00-24:00 and 00:00-06:00)'))
    .optional(),
  /** IANA time zone of weekdays and times, e.g. Europe/Berlin (default UTC). */
  location: z
    .string()
    .refine((tz) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, 'not a known time zone: write an IANA name such as Europe/Berlin or UTC')
    .default('UTC'),
});
export type TimeIntervalConfig = z.output<typeof timeInterval>;
export { WEEKDAYS };

/** An anchored regex, as Alertmanager's matchRe: it must match the whole label value. */
const regex = z.string().refine((r) => {
  try {
    new RegExp(`^(?:${r})$`);
    return true;
  } catch {
    return false;
  }
}, 'not a valid regular expression');

export interface ChildRoute {
  match?: Record<string, string> | undefined;
  matchRe?: Record<string, string> | undefined;
  continue: boolean;
  receivers?: string[] | undefined;
  groupBy?: string[] | undefined;
  groupWait?: number | undefined;
  groupInterval?: number | undefined;
  repeatInterval?: number | undefined;
  muteTimeIntervals?: string[] | undefined;
  routes: ChildRoute[];
}

/** A child route: alerts matching all of `match` (equality) and `matchRe` go here. */
const childRoute: z.ZodType<ChildRoute> = z.lazy(() =>
  z.strictObject({
    match: labels.optional(),
    matchRe: z.record(labelName, regex).optional(),
    /** Go on to the next sibling route after a match (default: stop at the first). */
    continue: z.boolean().default(false),
    receivers: z.array(name).optional(),
    groupBy: z.array(z.string()).optional(),
    groupWait: durationMs.optional(),
    groupInterval: durationMs.optional(),
    /** Reminders of firing state alerts to this route's receivers (0s: none). */
    repeatInterval: durationMs.optional(),
    /** Names from timeIntervals: notifications of this route are muted inside them. */
    muteTimeIntervals: z.array(name).optional(),
    routes: z.array(childRoute).default([]),
  }),
) as unknown as z.ZodType<ChildRoute>;

/**
 * What a network's rules need beyond the built-in ones (src/rules/network.ts). The loader gives
 * them to every rule of that network whose kind takes them and that does not set its own.
 */
const networkSettings = z.strictObject({
  /** Upgrade times that replace the built-in schedule (a schedule avawatch does not know yet, a local network). */
  upgrades: upgradeTimes.optional(),
  /** A P-Chain API (base URL: https://api.avax.network, or your own node's) for platform.getCurrentValidators; default: the inventory nodes' own `api`. */
  pChainApi: httpUrl.optional(),
});
export type NetworkSettings = z.output<typeof networkSettings>;
/** The keys a rule takes from `networks.<its network>` (when its kind's spec has them). */
export const NETWORK_KEYS = ['upgrades', 'pChainApi'] as const;

/** Keys whose values are never echoed in a config error: the core ones and every channel's secret fields. */
export const CONFIG_SECRET_KEYS: ReadonlySet<string> = new Set([...SECRET_KEYS, ...Object.values(channels).flatMap((c) => c.secretFields.map((f) => f.key))]);

function receiverSchema() {
  // `digest`: notifications of its severities wait for one message a period, where the
  // channel takes one (Channel.digests).
  const base = { name, type: z.string() };
  const variants = Object.values(channels).map((c) =>
    c.schema.extend({
      ...base,
      type: z.literal(c.type),
      digest: c.digests
        ? digestSchema.optional()
        : z.unknown().refine(() => false, { error: `a ${c.type} receiver keeps an incident per alert, which a digest would never resolve: give the digest to another receiver` }).optional(),
    }),
  );
  const union = z.discriminatedUnion('type', variants as unknown as [z.ZodObject, ...z.ZodObject[]]);
  // Each channel's own type checks its keys; here a receiver is known by name and type.
  return union as unknown as z.ZodType<ReceiverBase & Record<string, unknown>>;
}

/** Incidents (issue 40): one verdict for what many validators show at once. */
export const incidentsSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Inventory labels that group validators, most specific first: a child belongs to the first group whose incident holds. */
  groupBy: z.array(labelName).default(['host', 'region', 'provider', 'version', 'team']),
  /** Validators of one group with bad news within `window` that make one incident (a group smaller than k: all of it). */
  k: z.number().int('must be a whole number').min(2, 'must be at least 2: one validator is judged alone').default(3),
  window: durationMs.refine((ms) => ms > 0, 'must be more than 0s').default(600_000),
  /** How long a firing child waits for its incident before it is sent alone. */
  wait: durationMs.default(60_000),
  network: z
    .strictObject({
      /** Share (0..1) of the network's stake under a family's threshold that makes a network-wide incident. */
      share: z.number().gt(0, 'must be more than 0').max(1, 'must be at most 1: a fraction of the stake (0.33 is a third)').default(0.33),
      /** A validator is within the network's drop when its figure is no worse than the network's p10 (p90 for benched) by this many points. */
      tolerance: z.number().min(0).max(100).default(5),
      /** An older baseline is stale: no network verdict, each validator is judged alone. */
      maxAge: durationMs.refine((ms) => ms > 0, 'must be more than 0s').default(1_200_000),
    })
    .prefault({}),
});
export type IncidentsConfig = z.output<typeof incidentsSchema>;

export const configSchema = z.strictObject({
  api: api.prefault({}),
  state: z
    .strictObject({
      /** The SQLite file (one machine; the default). */
      path: z.string().min(1).default('data/avawatch.db'),
      /** PostgreSQL instead (docs/operations.md "Shared state"): the URL, a secret. */
      url: secretPostgresUrl.optional(),
      /**
       * With url: how long an instance holds its shards without renewing (renewed every third of
       * it). An instance that dies, hangs or loses PostgreSQL hands its rules over within about this.
       */
      lease: durationMs.default(15_000),
    })
    .superRefine((st, ctx) => {
      if (st.lease < 1_000 || st.lease > 600_000) ctx.addIssue({ code: 'custom', path: ['lease'], message: 'must be between 1s and 10m: renewed every third of it, and a rule on a dead instance waits up to this long' });
    })
    .prefault({}),
  server: z
    .strictObject({
      listen: z
        .string()
        .regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]*):\d{1,5}$/, 'expected host:port, e.g. 127.0.0.1:9464 or :9464')
        .default('127.0.0.1:9464'),
      /** Credentials asked for on /, /metrics and /api/v1/alerts (never on /healthz, /readyz). */
      auth: serverAuth.optional(),
    })
    .prefault({}),
  status: z
    .strictObject({
      /**
       * The explorer the status page links NodeIDs (`/validators/<NodeID>`) and P-chain
       * transactions (`/p-chain/tx/<hash>`) to: one base URL for every network, or one per network.
       */
      explorerUrl: z.union([httpUrl, z.record(z.string().min(1), httpUrl)]).optional(),
    })
    .prefault({}),
  log: z.strictObject({ level: z.enum(LOG_LEVELS).default('info') }).prefault({}),
  health: z
    .strictObject({
      /** A rule whose evaluations fail this many times in a row fires rule-failing and makes /readyz fail. */
      failingAfter: z.number().int('must be a whole number').min(1, 'must be at least 1 (the first failed evaluation)').max(1000, 'must be at most 1000').default(3),
      /** Severity of the rule-failing alert. */
      failingSeverity: z.enum(SEVERITIES).default('warning'),
    })
    .prefault({}),
  route: z
    .strictObject({
      receivers: z.array(name).default([]),
      /** Alerts with the same values of these labels go out as one message; `...`: all labels. */
      groupBy: z.array(z.string()).default(['rule']),
      /** A new group waits this long for more alerts before its first message. */
      groupWait: durationMs.default(0),
      /** Least time between two messages of the same group. */
      groupInterval: durationMs.default(0),
      /** Remind about a state alert still firing this often (a rule may override it); 0s: never. */
      repeatInterval: durationMs.default(14_400_000),
      muteTimeIntervals: z.array(name).default([]),
      routes: z.array(childRoute).default([]),
    })
    .prefault({}),
  receivers: z.array(receiverSchema()).default([]),
  delivery: delivery.prefault({}),
  /** What `avawatch history` and the status page read: events, state changes and sampled figures. */
  history: z
    .strictObject({
      /** Older events, state changes and samples are pruned (hourly). At least 1h: 0s would forget each event as it is made. */
      keep: durationMs.default(30 * 86_400_000),
      /** At most one sample of a figure (uptime, an L1 validator's balance) per entity this often. */
      sampleEvery: durationMs.default(600_000),
    })
    // Checked here, not on the key: the JSON Schema keeps the duration's pattern and default.
    .superRefine((h, ctx) => {
      if (h.keep < 3_600_000) ctx.addIssue({ code: 'custom', path: ['keep'], message: 'must be at least 1h: the history is pruned hourly, and a shorter one would forget what happened before anyone could read it' });
    })
    .prefault({}),
  incidents: incidentsSchema.prefault({}),
  /** The operator's own AvalancheGo nodes, as node-health and node-metrics read them (no compute units). */
  nodeApi: z
    .strictObject({
      /** Whole request, headers and body: a node that takes longer is "not answering". */
      timeout: durationMs.default(10_000),
      connectTimeout: durationMs.default(3_000),
    })
    .prefault({}),
  /**
   * A dead man's switch (healthchecks.io style): `url` is pinged after every `every` in which
   * every source answered, `failUrl` (default: url + /fail) while one is blind. Both are secrets.
   */
  heartbeat: z
    .strictObject({
      url: secretUrl.optional(),
      urlFile: z.string().min(1).optional(),
      failUrl: secretUrl.optional(),
      failUrlFile: z.string().min(1).optional(),
      every: durationMs.refine((ms) => ms >= 10_000, 'must be at least 10s').default(60_000),
      timeout: durationMs.default(10_000),
    })
    .optional(),
  /** Recurring windows (UTC) in which routes that name them mute their notifications. */
  timeIntervals: z.array(timeInterval).default([]),
  /** Per network (mainnet, fuji): upgrade times that replace the built-in ones, a P-Chain API. */
  networks: z.strictObject({ mainnet: networkSettings.optional(), fuji: networkSettings.optional() }).default({}),
  ruleFiles: z.array(z.string().min(1)).default([]),
  /** The validators rules select with `validators: all` or by label (the inventory). */
  validators: inventory.optional(),
  /** A YAML file with a top-level `validators:` list, relative to this file; instead of `validators`. */
  validatorsFile: z.string().min(1).optional(),
});
export type Config = z.output<typeof configSchema>;
export type ReceiverConfig = Config['receivers'][number];

const commonRule = {
  name,
  every: durationMs.optional(),
  schedule: z.string().optional(),
  severity: z.enum(SEVERITIES),
  /** What good and neutral news go at (default info); bad news goes at `severity`. */
  severities: z.strictObject({ good: z.enum(SEVERITIES).optional(), neutral: z.enum(SEVERITIES).optional() }).optional(),
  labels: labels.optional(),
  receivers: z.array(name).optional(),
  /** State alerts: hold this long before firing. */
  for: durationMs.optional(),
  /** State alerts: keep firing this long after the condition stops holding (flap control). */
  keepFiringFor: durationMs.optional(),
  repeatInterval: durationMs.optional(),
  sendResolved: z.boolean().optional(),
};

/**
 * Inventory validators a validator-scoped rule watches besides its own `nodeIds`: `all`, or
 * labels each must have (`name` picks one). The loader turns it into the kind's keys before
 * this schema sees the rule.
 */
const validatorSelector = z.union([z.literal('all'), z.record(z.string(), z.string())]);

// A kind may define a common key itself (metric-threshold's `for` is its series window): the kind's wins.
const ruleVariants = Object.values(ruleKinds).map((k) => {
  const common = Object.fromEntries(Object.entries(commonRule).filter(([key]) => !(key in k.spec.shape)));
  return k.spec.extend({ ...common, ...(k.selects ? { validators: validatorSelector.optional() } : {}), kind: z.literal(k.kind) });
});
export const ruleSchema = z.discriminatedUnion('kind', ruleVariants as unknown as [z.ZodObject, ...z.ZodObject[]]);

/** The file's frame; each rule is then checked on its own against ruleSchema. */
export const ruleFileSchema = z.strictObject({
  /** An example to copy: what in it must be replaced first (`check` and the daemon say so while it is set). */
  placeholder: z.string().min(1).optional(),
  rules: z.array(z.unknown()),
});

export interface RuleCommon {
  name: string;
  kind: string;
  every?: number | undefined;
  schedule?: string | undefined;
  severity: (typeof SEVERITIES)[number];
  severities?: { good?: (typeof SEVERITIES)[number] | undefined; neutral?: (typeof SEVERITIES)[number] | undefined } | undefined;
  labels?: Record<string, string> | undefined;
  receivers?: string[] | undefined;
  for?: number | undefined;
  keepFiringFor?: number | undefined;
  repeatInterval?: number | undefined;
  sendResolved?: boolean | undefined;
}
