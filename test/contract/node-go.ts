import fc from 'fast-check';

// AvalancheGo's reply structs, transcribed from its source (docs/node-api-source.md), as a
// small description of Go types: what the conformance test holds the simulator's answers
// to, and what generates every answer the Go encoder could write for the parser.

export const AVALANCHEGO = { version: 'avalanchego/1.14.2', commit: '1cf1fc3d1711a09fde7319d2b48609c8cba93680', gorillaRpc: 'v1.2.0' };

export type GoType =
  | { go: 'string'; pattern?: RegExp; gen?: fc.Arbitrary<string> }
  | { go: 'bool' | 'int64' | 'uint64' | 'float64' | 'json.Uint64' | 'json.Uint32' | 'json.Float64' | 'json.Float32' | 'time.Time' | 'time.Duration' | 'any' }
  | { go: 'ptr' | 'slice'; elem: GoType }
  | { go: 'map'; value: GoType }
  | { go: 'struct'; name: string; fields: GoField[] };
export interface GoField {
  json: string;
  type: GoType;
  omitempty?: boolean;
}

/** A string; `pattern` what Go writes, `gen` how to write one fast (fc.stringMatching is slow on long ones). */
const str = (pattern?: RegExp, gen?: fc.Arbitrary<string>): GoType => ({ go: 'string', ...(pattern ? { pattern } : {}), ...(gen ? { gen } : {}) });
const BASE58 = [...'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'];
const nodeIdGen = fc.string({ unit: fc.constantFrom(...BASE58), minLength: 30, maxLength: 34 }).map((s) => `NodeID-${s}`);
const hexGen = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString('hex')}`);
const ipGen = fc.oneof(fc.constant(''), fc.tuple(fc.ipV4(), fc.integer({ min: 1, max: 65_535 })).map(([ip, port]) => `${ip}:${port}`));
const f = (json: string, type: GoType, omitempty = false): GoField => ({ json, type, omitempty });

/** api/health/result.go Result */
export const Result: GoType = {
  go: 'struct',
  name: 'health.Result',
  fields: [
    f('message', { go: 'any' }, true),
    f('error', { go: 'ptr', elem: str() }, true),
    f('timestamp', { go: 'time.Time' }, true),
    f('duration', { go: 'time.Duration' }),
    f('contiguousFailures', { go: 'int64' }, true),
    f('timeOfFirstFailure', { go: 'ptr', elem: { go: 'time.Time' } }, true),
  ],
};
/** api/health/service.go APIArgs, the params of health.health, health.readiness, health.liveness. */
export const APIArgs: GoType = { go: 'struct', name: 'health.APIArgs', fields: [f('tags', { go: 'slice', elem: str() })] };
/**
 * network/network.go HealthCheck's details, a map[string]interface{} (keys set as it goes: the
 * message times only once a message went, the ingress report after its grace period), here as a
 * struct whose optional keys are omitempty; durations as time.Duration.String().
 */
export const NetworkHealthDetails: GoType = {
  go: 'struct',
  name: 'network health details',
  fields: [
    f('connectedPeers', { go: 'int64' }),
    f('timeSinceLastMsgReceived', str(/^[\d.]+(ns|µs|ms|s|m|h)|(\d+h)?(\d+m)?[\d.]+s$/), true),
    f('timeSinceLastMsgSent', str(/^[\d.]+(ns|µs|ms|s|m|h)|(\d+h)?(\d+m)?[\d.]+s$/), true),
    f('sendFailRate', { go: 'float64' }),
    f(
      'primary network validator health',
      { go: 'ptr', elem: { go: 'struct', name: 'no_ingress_conn_alert.go result', fields: [f('ingressConnectionCount', { go: 'int64' }), f('primaryNetworkValidator', { go: 'bool' })] } },
      true,
    ),
  ],
};
/** api/health/service.go APIReply */
export const APIReply: GoType = { go: 'struct', name: 'health.APIReply', fields: [f('checks', { go: 'map', value: Result }), f('healthy', { go: 'bool' })] };

/** vms/platformvm/signer ProofOfPossession (MarshalJSON: formatting.HexNC) */
const ProofOfPossession: GoType = {
  go: 'struct',
  name: 'signer.ProofOfPossession',
  fields: [f('publicKey', str(/^0x[0-9a-f]{96}$/, hexGen(48))), f('proofOfPossession', str(/^0x[0-9a-f]{192}$/, hexGen(96)))],
};
export const GetNodeIDReply: GoType = { go: 'struct', name: 'info.GetNodeIDReply', fields: [f('nodeID', str(/^NodeID-[1-9A-HJ-NP-Za-km-z]+$/, nodeIdGen)), f('nodePOP', { go: 'ptr', elem: ProofOfPossession })] };
export const GetNodeVersionReply: GoType = {
  go: 'struct',
  name: 'info.GetNodeVersionReply',
  fields: [
    f('version', str(/^avalanchego\/\d+\.\d+\.\d+$/, fc.tuple(fc.nat(20), fc.nat(40), fc.nat(40)).map((v) => `avalanchego/${v.join('.')}`))),
    f('databaseVersion', str()),
    f('rpcProtocolVersion', { go: 'json.Uint32' }),
    f('gitCommit', str()),
    f('vmVersions', { go: 'map', value: str() }),
  ],
};
export const IsBootstrappedResponse: GoType = { go: 'struct', name: 'info.IsBootstrappedResponse', fields: [f('isBootstrapped', { go: 'bool' })] };
export const UptimeResponse: GoType = {
  go: 'struct',
  name: 'info.UptimeResponse',
  fields: [f('rewardingStakePercentage', { go: 'json.Float64' }), f('weightedAveragePercentage', { go: 'json.Float64' })],
};
/** network/peer.Info + Benched (netip.AddrPort is a struct: omitempty leaves publicIP in, "" when unset). */
const Peer: GoType = {
  go: 'struct',
  name: 'info.Peer',
  fields: [
    f('ip', str(/^(\d+\.\d+\.\d+\.\d+:\d+|)$/, ipGen)),
    f('publicIP', str(/^(\d+\.\d+\.\d+\.\d+:\d+|)$/, ipGen)), // omitempty in Go, but a struct: always written
    f('nodeID', str(/^NodeID-[1-9A-HJ-NP-Za-km-z]+$/, nodeIdGen)),
    f('version', str()),
    f('upgradeTime', { go: 'uint64' }),
    f('lastSent', { go: 'time.Time' }),
    f('lastReceived', { go: 'time.Time' }),
    f('observedUptime', { go: 'json.Uint32' }),
    f('trackedSubnets', { go: 'slice', elem: str() }),
    f('supportedACPs', { go: 'slice', elem: { go: 'uint64' } }),
    f('objectedACPs', { go: 'slice', elem: { go: 'uint64' } }),
    f('benched', { go: 'slice', elem: str() }),
  ],
};
export const PeersReply: GoType = { go: 'struct', name: 'info.PeersReply', fields: [f('numPeers', { go: 'json.Uint64' }), f('peers', { go: 'slice', elem: Peer })] };

// ---- the P-Chain API (v1.15.0-fuji, vms/platformvm/api/validator.go and service.go)

const id = str(/^[1-9A-HJ-NP-Za-km-z]+$/, fc.string({ unit: fc.constantFrom(...BASE58), minLength: 40, maxLength: 50 }));
const nodeID = str(/^NodeID-[1-9A-HJ-NP-Za-km-z]+$/, nodeIdGen);
const u64: GoType = { go: 'json.Uint64' };
const ptr = (elem: GoType): GoType => ({ go: 'ptr', elem });
/** api.Owner */
const Owner: GoType = { go: 'struct', name: 'api.Owner', fields: [f('locktime', u64), f('threshold', { go: 'json.Uint32' }), f('addresses', { go: 'slice', elem: str() })] };
/** api.Staker, embedded: its fields sit at the top level. */
const staker = [f('txID', id), f('startTime', u64), f('endTime', u64), f('weight', u64), f('nodeID', nodeID)];
const PrimaryDelegator: GoType = { go: 'struct', name: 'api.PrimaryDelegator', fields: [...staker, f('rewardOwner', ptr(Owner), true), f('potentialReward', ptr(u64), true)] };
const UTXO: GoType = { go: 'struct', name: 'api.UTXO', fields: [f('locktime', u64), f('amount', u64), f('address', str()), f('message', str())] };

/**
 * api.PermissionlessValidator; `autoRenewed`: its embedded *AutoRenewedConfig is set, so its
 * three fields are written (validatorAuthority with no omitempty), else none of them is.
 */
function permissionlessValidator(autoRenewed: boolean): GoType {
  return {
    go: 'struct',
    name: autoRenewed ? 'api.PermissionlessValidator (auto-renewed)' : 'api.PermissionlessValidator',
    fields: [
      ...staker,
      // BaseL1Validator, embedded: nil for a primary-network validator, but the parser takes them.
      f('validationID', ptr(id), true),
      f('publicKey', ptr(str(/^0x[0-9a-f]*$/, hexGen(48))), true),
      f('remainingBalanceOwner', ptr(Owner), true),
      f('deactivationOwner', ptr(Owner), true),
      f('minNonce', ptr(u64), true),
      f('balance', ptr(u64), true),
      f('validationRewardOwner', ptr(Owner), true),
      f('delegationRewardOwner', ptr(Owner), true),
      f('potentialReward', ptr(u64), true),
      f('accruedDelegateeReward', ptr(u64), true),
      f('delegationFee', { go: 'json.Float32' }),
      f('exactDelegationFee', ptr({ go: 'json.Uint32' }), true),
      f('uptime', ptr({ go: 'json.Float32' }), true),
      f('connected', ptr({ go: 'bool' }), true),
      f('staked', { go: 'slice', elem: UTXO }, true),
      f('signer', ptr(ProofOfPossession), true),
      ...(autoRenewed ? [f('validatorAuthority', ptr(Owner)), f('nextPeriod', u64), f('autoCompoundRewardShares', { go: 'json.Uint32' })] : []),
      f('delegatorCount', ptr(u64), true),
      f('delegatorWeight', ptr(u64), true),
      f('delegators', ptr({ go: 'slice', elem: PrimaryDelegator }), true),
    ],
  };
}
export const PermissionlessValidator = permissionlessValidator(false);
export const AutoRenewedValidator = permissionlessValidator(true);
/** platform.getStakingAssetID */
export const GetStakingAssetIDResponse: GoType = { go: 'struct', name: 'platformvm.GetStakingAssetIDResponse', fields: [f('assetID', id)] };
/** upgrade/upgrade.go Config, as info.upgrades answers it. */
export const UpgradeConfig: GoType = {
  go: 'struct',
  name: 'upgrade.Config',
  fields: [
    ...['apricotPhase1', 'apricotPhase2', 'apricotPhase3', 'apricotPhase4'].map((n) => f(`${n}Time`, { go: 'time.Time' })),
    f('apricotPhase4MinPChainHeight', { go: 'uint64' }),
    ...['apricotPhase5', 'apricotPhasePre6', 'apricotPhase6', 'apricotPhasePost6', 'banff', 'cortina'].map((n) => f(`${n}Time`, { go: 'time.Time' })),
    f('cortinaXChainStopVertexID', id),
    ...['durango', 'etna', 'fortuna', 'granite'].map((n) => f(`${n}Time`, { go: 'time.Time' })),
    f('graniteEpochDuration', { go: 'time.Duration' }),
    f('heliconTime', { go: 'time.Time' }),
  ],
};

/** gorilla/rpc v1.2.0 json2 serverResponse and Error (Data has no omitempty). */
const RpcError: GoType = { go: 'struct', name: 'json2.Error', fields: [f('code', { go: 'int64' }), f('message', str()), f('data', { go: 'any' })] };
export function rpcResponse(result: GoType): GoType {
  // Result is an interface{} with omitempty: absent beside an error, the reply struct otherwise.
  return { go: 'struct', name: 'json2.serverResponse', fields: [f('jsonrpc', str(/^2\.0$/, fc.constant('2.0'))), f('result', { go: 'ptr', elem: result }, true), f('error', { go: 'ptr', elem: RpcError }, true), f('id', { go: 'any' })] };
}

// ---- conformance: is this JSON what Go's encoder would write for the type?

const RFC3339NANO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d*[1-9])?(Z|[+-]\d{2}:\d{2})$/;

/** Go's omitempty omits false, 0, "", nil pointers/interfaces and empty maps/slices; never a struct (time.Time included). */
function isEmpty(type: GoType, value: unknown): boolean {
  if (type.go === 'struct' || type.go === 'time.Time') return false;
  // A pointer is empty only when nil: one to "", 0 or [] is written.
  if (type.go === 'ptr') return value === null;
  if (type.go === 'any') return value === null; // a nil interface; one holding 0 or "" is written
  if (value === null || value === false || value === 0 || value === '') return true;
  if (type.go === 'json.Uint64' || type.go === 'json.Uint32' || type.go === 'json.Float64' || type.go === 'json.Float32') return Number(value) === 0;
  if (Array.isArray(value)) return value.length === 0;
  return type.go === 'map' && typeof value === 'object' && Object.keys(value as object).length === 0;
}

/** Every way `value` differs from what Go writes for `type`, as `path: problem`. */
export function conformance(value: unknown, type: GoType, path = '$'): string[] {
  const bad = (what: string) => [`${path}: ${what}, got ${JSON.stringify(value)?.slice(0, 80)}`];
  switch (type.go) {
    case 'string':
      if (typeof value !== 'string') return bad('expected a string');
      return type.pattern && !type.pattern.test(value) ? bad(`expected ${type.pattern}`) : [];
    case 'bool':
      return typeof value === 'boolean' ? [] : bad('expected a bool');
    case 'float64':
      return typeof value === 'number' && Number.isFinite(value) ? [] : bad('expected a bare finite number');
    case 'int64':
    case 'time.Duration':
      return Number.isInteger(value) ? [] : bad('expected a bare integer');
    case 'uint64':
      return Number.isInteger(value) && (value as number) >= 0 ? [] : bad('expected a bare unsigned integer');
    case 'json.Uint64':
    case 'json.Uint32':
      return typeof value === 'string' && /^\d+$/.test(value) ? [] : bad(`expected ${type.go}: a quoted unsigned integer`);
    case 'json.Float64':
    case 'json.Float32':
      return typeof value === 'string' && /^(-?\d+\.\d{4}|NaN|[+-]Inf)$/.test(value) ? [] : bad(`expected ${type.go}: a quoted number with 4 decimals`);
    case 'time.Time':
      return typeof value === 'string' && RFC3339NANO.test(value) ? [] : bad('expected a time.Time (RFC 3339, nanoseconds without trailing zeros)');
    case 'any':
      return [];
    case 'ptr':
      return value === null ? [] : conformance(value, type.elem, path);
    case 'slice':
      if (value === null) return [];
      if (!Array.isArray(value)) return bad('expected an array or null');
      return value.flatMap((v, i) => conformance(v, type.elem, `${path}[${i}]`));
    case 'map':
      if (value === null) return [];
      if (typeof value !== 'object' || Array.isArray(value)) return bad('expected an object (a Go map) or null');
      return Object.entries(value as object).flatMap(([k, v]) => conformance(v, type.value, `${path}.${k}`));
    case 'struct': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad(`expected ${type.name}`);
      const record = value as Record<string, unknown>;
      const known = new Set(type.fields.map((x) => x.json));
      const extra = Object.keys(record).filter((k) => !known.has(k)).map((k) => `${path}.${k}: not a field of ${type.name}`);
      return [
        ...extra,
        ...type.fields.flatMap((field) => {
          const at = `${path}.${field.json}`;
          if (!(field.json in record)) return field.omitempty && !(field.type.go === 'struct' || field.type.go === 'time.Time') ? [] : [`${at}: missing (Go always writes it)`];
          const v = record[field.json];
          if (field.omitempty && isEmpty(field.type, v)) return [`${at}: Go's omitempty would leave ${JSON.stringify(v)} out`];
          return conformance(v, field.type, at);
        }),
      ];
    }
  }
}

// ---- generation: JSON text as Go's encoder could write it (numbers Go writes bare may pass 2^53).

export interface GenOptions {
  /** Write json.Uint64/Uint32/Float64 bare, as a proxy re-encoding the answer might. */
  bare: boolean;
  /** Add fields the struct does not have (a later node version). */
  extra: boolean;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** Names that trip code treating a JSON object as a map. */
const HOSTILE = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '', 'P', 'C', 'X', 'bootstrapped', '<script>&'];

/** Go's encoder escapes <, > and & (HTMLEscape), otherwise the same as JSON.stringify for valid text. */
export function goString(s: string): string {
  return JSON.stringify(s).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

const text = fc.string({ unit: 'grapheme', maxLength: 24 });
export const checkName = fc.oneof(fc.constantFrom(...HOSTILE), text);

/** A Go time.Time as MarshalJSON writes it, in any zone offset; with its instant in ms. */
export const goTime = fc
  .record({
    seconds: fc.integer({ min: -62_135_596_800 + 86_400, max: 253_402_214_400 - 2 * 86_400 }),
    nanos: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 999_999_999 })),
    offsetMinutes: fc.oneof(fc.constant(0), fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 })),
    z: fc.boolean(),
  })
  .map(({ seconds, nanos, offsetMinutes, z }) => {
    const local = new Date((seconds + offsetMinutes * 60) * 1000);
    const pad = (n: number, w = 2) => String(n).padStart(w, '0');
    const frac = nanos === 0 ? '' : `.${pad(nanos, 9)}`.replace(/0+$/, '');
    const off = Math.abs(offsetMinutes);
    const zone = offsetMinutes === 0 && z ? 'Z' : `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(off / 60))}:${pad(off % 60)}`;
    const textValue = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${frac}${zone}`;
    return { text: textValue, ms: seconds * 1000 + Math.floor(nanos / 1e6) };
  });

/** Any JSON value as text (message details, data, unknown fields). */
const anyJson = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v));

/** JSON text for one value of `type`; `nonEmpty` when an omitempty field is written (so it is not Go's zero). */
export function goValue(type: GoType, o: GenOptions, nonEmpty = false): fc.Arbitrary<string> {
  const quote = (digits: string) => (o.bare ? digits : `"${digits}"`);
  switch (type.go) {
    case 'string':
      if (type.gen) return (nonEmpty ? type.gen.filter((s) => s !== '') : type.gen).map(goString);
      if (type.pattern) return fc.stringMatching(type.pattern).map(goString);
      return (nonEmpty ? text.filter((s) => s !== '') : text).map(goString);
    case 'bool':
      return nonEmpty ? fc.constant('true') : fc.boolean().map(String);
    case 'float64':
      return fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !nonEmpty || d !== 0).map((d) => JSON.stringify(d));
    case 'int64':
    case 'time.Duration':
      return fc.bigInt(INT64_MIN, INT64_MAX).filter((b) => !nonEmpty || b !== 0n).map(String);
    case 'uint64':
      return fc.bigInt(0n, 2n ** 64n - 1n).map(String);
    case 'json.Uint64':
      return fc.bigInt(0n, 2n ** 64n - 1n).map((b) => quote(String(b)));
    case 'json.Uint32':
      return fc.bigInt(0n, 2n ** 32n - 1n).map((b) => quote(String(b)));
    case 'json.Float64':
    case 'json.Float32':
      return fc.double({ min: 0, max: 100, noNaN: true }).map((d) => quote(d.toFixed(4)));
    case 'time.Time':
      return goTime.map((t) => JSON.stringify(t.text));
    case 'any':
      return anyJson;
    case 'ptr':
      return nonEmpty ? goValue(type.elem, o, false) : fc.oneof(fc.constant('null'), goValue(type.elem, o));
    case 'slice':
      return fc.array(goValue(type.elem, o), { minLength: nonEmpty ? 1 : 0, maxLength: 3 }).map((items) => `[${items.join(',')}]`);
    case 'map':
      return fc.dictionary(checkName, goValue(type.value, o), { maxKeys: 6 }).map((d) => `{${Object.entries(d).map(([k, v]) => `${goString(k)}:${v}`).join(',')}}`);
    case 'struct':
      return goStruct(type, o);
  }
}

function goStruct(type: Extract<GoType, { go: 'struct' }>, o: GenOptions): fc.Arbitrary<string> {
  const fields = type.fields.map((field) => {
    const value = goValue(field.type, o, field.omitempty === true);
    const entry = value.map((v) => `${JSON.stringify(field.json)}:${v}`);
    return field.omitempty ? fc.option(entry, { nil: undefined }) : entry.map((e): string | undefined => e);
  });
  const extra = o.extra ? fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !type.fields.some((x) => x.json === k)), anyJson, { maxKeys: 2 }) : fc.constant({});
  return fc.tuple(fc.tuple(...fields), extra).map(([entries, more]) => `{${[...entries.filter((e) => e !== undefined), ...Object.entries(more).map(([k, v]) => `${JSON.stringify(k)}:${v}`)].join(',')}}`);
}

// ---- an L1's proposervm (vms/proposervm/service.go, identical v1.14.0 through master) and the P-Chain's heights

/** api.GetHeightResponse (api/common_args_responses.go): proposervm.getProposedHeight, platform.getHeight, platform.getProposedHeight. */
export const GetHeightResponse: GoType = { go: 'struct', name: 'api.GetHeightResponse', fields: [f('height', { go: 'json.Uint64' })] };
/** proposervm GetEpochResponse (service.go:110-114). */
export const GetEpochResponse: GoType = {
  go: 'struct',
  name: 'proposervm.GetEpochResponse',
  fields: [f('number', { go: 'json.Uint64' }), f('startTime', { go: 'json.Uint64' }), f('pChainHeight', { go: 'json.Uint64' })],
};
