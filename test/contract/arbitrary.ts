import fc from 'fast-check';
import type { ZodTypeAny as S } from 'zod/v3';

// Wire responses from a zod v3 schema (the SDK's `$inboundSchema`s), for fast-check 4.
// zod-fast-check needs fast-check < 4, and it generates a schema's *output*: the SDK's
// inbound schemas may `.transform` (and remap keys, `_links` → `links`), so we walk the
// *input* side instead: effects and pipelines give way to the schema inside them.

export interface WireOptions {
  /** Status discriminators sometimes carry a value the SDK does not list (default true). */
  unknownStatuses?: boolean;
  /** Objects that are not strict get random unknown keys (default true; the SDK strips them). */
  extraFields?: boolean;
  /** The fields whose values the service adds to over time. */
  statusKeys?: readonly string[];
  /** String fields holding decimal numbers (nAVAX, heights, fees): the SDK types them as string. */
  decimalKeys?: RegExp;
}

const STATUS_KEYS = ['validationStatus', 'delegationStatus', 'status', 'operationStatus'];
const DECIMAL_KEYS = /^(amount\w+|\w+Amount|\w*(Gross|Net|gross|net)Reward|delegationFee|delegationCapacity|blockHeight|\w*EvmChainId|\w*(Nonce|nonce)|value|gasSpent)$/;
/** Statuses the service could add tomorrow (random ones too, minus every one the schema lists). */
const NEW_STATUSES = ['slashed', 'CANCELLED', 'exiting', 'Active', 'PARTIALLY_COMPLETED', ''];
/** Text a chat channel, a template, or an object used as a map could trip on. */
const HOSTILE = ['*bold* <b> @channel', '<!here> `code` _x_ ~y~', '${HOME} {{name}} %s', '\u202eevil\u0000', '__proto__', 'constructor'];

// The part of zod v3's `_def` the walk reads (the SDK's types give `_def` as the bare ZodTypeDef).
interface Def {
  typeName: string;
  checks?: Array<{ kind: string; value?: number; inclusive?: boolean }>;
  shape?: () => Record<string, S>;
  unknownKeys?: string;
  catchall?: S;
  minLength?: { value: number } | null;
  maxLength?: { value: number } | null;
  exactLength?: { value: number } | null;
  options?: Iterable<S>;
  value?: unknown;
  values?: readonly unknown[] | Record<string, string | number>;
  effect?: { type: string };
  getter?: () => S;
  [inner: string]: unknown; // type, innerType, schema, in, keyType, valueType: the schemas inside
}

export function wireArbitrary(schema: S, options: WireOptions = {}): fc.Arbitrary<unknown> {
  const { unknownStatuses = true, extraFields = true, statusKeys = STATUS_KEYS, decimalKeys = DECIMAL_KEYS } = options;
  /** Every status value listed in any branch: an "unknown" one must be none of them. */
  const listed = new Set<unknown>();
  return walk(schema, undefined, 0);

  // `key`: the object key the value sits under (it picks decimal strings and statuses).
  function walk(s: S, key: string | undefined, depth: number): fc.Arbitrary<unknown> {
    if (depth > 40) throw new Error('wireArbitrary: schema nests deeper than 40 levels (a recursive z.lazy?)');
    const def = s._def as Def;
    const inside = (name: string) => walk(def[name] as S, key, depth + 1); // same key (a wrapper)
    const item = (name: string) => walk(def[name] as S, undefined, depth + 1); // no key (array items, record entries)
    switch (def.typeName) {
      case 'ZodObject':
        return object(def, depth);
      case 'ZodString':
        return key !== undefined && decimalKeys.test(key) ? decimal(/fee/i.test(key)) : text();
      case 'ZodNumber':
        return number(def.checks ?? []);
      case 'ZodBoolean':
        return fc.boolean();
      case 'ZodArray': {
        const min = def.exactLength?.value ?? def.minLength?.value ?? 0;
        return fc.array(item('type'), { minLength: min, maxLength: def.exactLength?.value ?? Math.max(min, Math.min(3, def.maxLength?.value ?? 3)) });
      }
      case 'ZodUnion':
      case 'ZodDiscriminatedUnion': // every branch
        return fc.oneof(...[...(def.options as Iterable<S>)].map((t) => walk(t, key, depth + 1)));
      case 'ZodLiteral':
        return status([def.value], key);
      case 'ZodEnum':
      case 'ZodNativeEnum':
        return status(enumValues(def.values), key);
      case 'ZodOptional': // absent or present is the object's choice: `undefined` never travels in JSON
      case 'ZodDefault':
        return inside('innerType');
      case 'ZodNullable':
        return fc.option(inside('innerType'), { nil: null });
      case 'ZodEffects': {
        // transform/preprocess: the wire carries the inner schema's input. A refinement
        // may reject some of those: keep what the whole schema accepts.
        const base = inside('schema');
        return def.effect?.type === 'refinement' ? base.filter((v) => s.safeParse(v).success) : base;
      }
      case 'ZodPipeline':
        return inside('in');
      case 'ZodLazy':
        return walk((def.getter as () => S)(), key, depth + 1);
      case 'ZodRecord':
        return fc.dictionary(item('keyType') as fc.Arbitrary<string>, item('valueType'), { maxKeys: 3 });
      case 'ZodIntersection': // `A.and(B)` of two objects (NFT tokens): both sides' fields in one object
        return fc.tuple(inside('left'), inside('right')).map(([a, b]) => ({ ...(a as object), ...(b as object) }));
      case 'ZodAny':
      case 'ZodUnknown':
        return fc.jsonValue({ maxDepth: 2 });
      default:
        throw new Error(`wireArbitrary: no generator for ${def.typeName}${key === undefined ? '' : ` (at key "${key}")`}`);
    }
  }

  // Optional keys present or absent; unknown keys beside the known ones.
  function object(def: Def, depth: number): fc.Arbitrary<unknown> {
    const shape = (def.shape as () => Record<string, S>)();
    const model = Object.fromEntries(Object.entries(shape).map(([k, field]) => [k, walk(field, k, depth + 1)]));
    const known = fc.record(model, { requiredKeys: Object.keys(shape).filter((k) => !(shape[k] as S).isOptional()) });
    // A strict object rejects unknown keys, and a catchall types them: none there.
    const catchall = (def.catchall?._def as Def | undefined)?.typeName ?? 'ZodNever';
    if (!extraFields || def.unknownKeys === 'strict' || catchall !== 'ZodNever') return known;
    const extras = fc.dictionary(fc.string({ maxLength: 12 }).filter((k) => !Object.hasOwn(shape, k)), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
    return fc.tuple(known, extras).map(([k, e]) => ({ ...e, ...k }));
  }

  // A listed value; under a status key, sometimes one the SDK does not list yet (the rest of the branch unchanged).
  function status(values: readonly unknown[], key: string | undefined): fc.Arbitrary<unknown> {
    const listedHere = fc.constantFrom(...values);
    if (key === undefined || !statusKeys.includes(key)) return listedHere;
    values.forEach((v) => listed.add(v));
    if (!unknownStatuses) return listedHere;
    const unlisted = fc.oneof(fc.constantFrom(...NEW_STATUSES), fc.string({ minLength: 1, maxLength: 16 })).filter((v) => !listed.has(v));
    return fc.oneof({ arbitrary: listedHere, weight: 3 }, { arbitrary: unlisted, weight: 1 });
  }
}

/** Plain, empty, any Unicode, lone surrogates, hostile, and up to 4 KB long. */
function text(): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.string(), weight: 4 },
    { arbitrary: fc.constantFrom('', ...HOSTILE), weight: 2 },
    { arbitrary: fc.string({ unit: 'grapheme' }), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 8 }), weight: 1 },
    // size 'max': lengths spread up to the limit (not biased small), still shrinking towards "".
    { arbitrary: fc.string({ maxLength: 4096, size: 'max' }), weight: 1 },
  );
}

/** Decimal digits as text: 0, past 2^53 and 2^64, leading zeros; fees may have a fraction ("2.0000"). */
function decimal(fraction: boolean): fc.Arbitrary<string> {
  const digits = (max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: max });
  const whole = fc.oneof(fc.constantFrom('0', '1', '2000000000000', '9007199254740993', '18446744073709551616'), fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String), digits(60));
  return fraction ? fc.tuple(whole, fc.option(digits(6), { nil: undefined })).map(([w, f]) => (f === undefined ? w : `${w}.${f}`)) : whole;
}

/** Boundaries (0, ±1, ±MAX_SAFE_INTEGER, the extremes, the bounds), integers, then any finite double. */
function number(checks: NonNullable<Def['checks']>): fc.Arbitrary<number> {
  const unsupported = checks.find((c) => !['int', 'min', 'max', 'finite'].includes(c.kind));
  if (unsupported) throw new Error(`wireArbitrary: no generator for ZodNumber check "${unsupported.kind}"`);
  const int = checks.some((c) => c.kind === 'int');
  const [min, max] = [checks.find((c) => c.kind === 'min'), checks.find((c) => c.kind === 'max')];
  const above = (n: number) => !min || n > (min.value as number) || (min.inclusive !== false && n === min.value);
  const fits = (n: number) => above(n) && (!max || n < (max.value as number) || (max.inclusive !== false && n === max.value)) && (!int || Number.isInteger(n));
  const bounds = [min?.value, max?.value].flatMap((b) => (b === undefined ? [] : [b - 1, b, b + 1]));
  const edges = [0, 1, -1, 0.5, 99.99, 100, 1_700_000_000, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE, ...bounds].filter(fits);
  // The integers within the bounds (none between 0 and 1 exclusive), then doubles unless int.
  let lo = Math.max(Math.ceil(min?.value ?? -Infinity), -Number.MAX_SAFE_INTEGER);
  let hi = Math.min(Math.floor(max?.value ?? Infinity), Number.MAX_SAFE_INTEGER);
  if (!fits(lo)) lo++;
  if (!fits(hi)) hi--;
  const range = { ...(min ? { min: min.value, minExcluded: min.inclusive === false } : {}), ...(max ? { max: max.value, maxExcluded: max.inclusive === false } : {}) };
  const arbs = [
    ...(edges.length > 0 ? [fc.constantFrom(...edges)] : []),
    ...(lo <= hi ? [fc.integer({ min: lo, max: hi })] : []),
    ...(int ? [] : [fc.double({ noNaN: true, noDefaultInfinity: true, ...range })]),
  ];
  if (arbs.length === 0) throw new Error(`wireArbitrary: no number fits the checks ${JSON.stringify(checks)}`);
  // -0 does not exist in JSON: it arrives as 0.
  return fc.oneof(...arbs).map((n) => (Object.is(n, -0) ? 0 : n));
}

/** zod v3 native enums keep reverse mappings for numeric members: only the real values. */
function enumValues(values: Def['values']): unknown[] {
  if (Array.isArray(values)) return values;
  const obj = values as Record<string, string | number>;
  return Object.keys(obj).filter((k) => typeof obj[obj[k] as string] !== 'number').map((k) => obj[k]);
}
