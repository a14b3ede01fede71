import { readFile, stat } from 'node:fs/promises';
import shipped from './compatibility.json' with { type: 'json' };

// Which RPCChainVM protocol a version speaks. AvalancheGo's version/compatibility.json maps
// each protocol to the AvalancheGo releases that speak it; the copy shipped here is
// v1.15.0-fuji's (commit e8f9781e, protocol 46 → v1.15.0). Subnet-EVM lives in AvalancheGo's
// graft/ since v1.14.1, and since v1.14.2 its plugin reports AvalancheGo's own version
// (graft/subnet-evm/plugin/evm/vm.go: Version() returns version.Current.Semantic(), e.g.
// "v1.15.0"), so the same file answers for it (RELEASES.md v1.14.2: "Removed
// graft/subnet-evm/compatibility.json"). Its older releases (v0.7.0–v0.8.0) had a table of
// their own, kept below from v1.14.1's graft/subnet-evm/compatibility.json.

/** Version (v1.15.0, v0.7.4) → protocol. */
export type Table = ReadonlyMap<string, number>;

/** Subnet-EVM's own releases (graft/subnet-evm/compatibility.json at AvalancheGo v1.14.1, its last). */
const SUBNET_EVM: Record<string, number> = {
  'v0.8.0': 44, 'v0.7.9': 43, 'v0.7.8': 43, 'v0.7.7': 42, 'v0.7.6': 42, 'v0.7.5': 41, 'v0.7.4': 40, 'v0.7.3': 39, 'v0.7.2': 39, 'v0.7.1': 39, 'v0.7.0': 38,
};

/** The largest file read (AvalancheGo's is 2 KB). */
const MAX_BYTES = 1024 * 1024;

/**
 * A table from either shape: AvalancheGo's `{"46": ["v1.15.0"], …}`, or a plugin's own
 * `{"rpcChainVMProtocolVersion": {"v0.8.0": 44, …}}` (Subnet-EVM's before the graft). Throws
 * with what is wrong.
 */
export function parseTable(json: unknown): Table {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('expected a JSON object');
  const out = new Map<string, number>();
  const plugin = (json as Record<string, unknown>)['rpcChainVMProtocolVersion'];
  if (plugin !== undefined) {
    if (typeof plugin !== 'object' || plugin === null || Array.isArray(plugin)) throw new Error('rpcChainVMProtocolVersion: expected {"v0.8.0": 44, …}');
    for (const [version, protocol] of Object.entries(plugin)) {
      if (!Number.isSafeInteger(protocol) || (protocol as number) < 0) throw new Error(`rpcChainVMProtocolVersion.${version}: expected a protocol number`);
      const key = versionKey(version);
      if (key === undefined) throw new Error(`rpcChainVMProtocolVersion: "${version.slice(0, 40)}" is not a version`);
      out.set(key, protocol as number);
    }
    return out;
  }
  for (const [protocol, versions] of Object.entries(json)) {
    if (!/^\d{1,6}$/.test(protocol)) throw new Error(`"${protocol.slice(0, 40)}": expected a protocol number as the key ({"46": ["v1.15.0"]})`);
    if (!Array.isArray(versions) || versions.some((v) => typeof v !== 'string')) throw new Error(`"${protocol}": expected a list of versions`);
    for (const v of versions as string[]) {
      const key = versionKey(v);
      if (key === undefined) throw new Error(`"${protocol}": "${v.slice(0, 40)}" is not a version`);
      out.set(key, Number(protocol));
    }
  }
  return out;
}

let builtIn: Table | undefined;

/**
 * The tables built in: AvalancheGo's releases, then Subnet-EVM's own. Read at first use, not
 * when the module loads: a fault in the reader fails the rule's evaluation, never the import.
 */
export function builtInTable(): Table {
  builtIn ??= new Map([...parseTable(shipped), ...Object.entries(SUBNET_EVM)]);
  return builtIn;
}

/**
 * A version as the tables key it: `v` and major.minor.patch, from "v0.8.0@abc123" (a plugin
 * built with its commit), "avalanchego/1.15.0" or "1.15.0-fuji" (a pre-release speaks its
 * release's protocol). Undefined when the text holds no version.
 */
export function versionKey(text: string): string | undefined {
  const m = /(?<![0-9A-Za-z.])v?(\d{1,6})\.(\d{1,6})\.(\d{1,6})(?![0-9])/.exec(text.slice(0, 200));
  return m ? `v${Number(m[1])}.${Number(m[2])}.${Number(m[3])}` : undefined;
}

/** The protocol `version` speaks: the operator's tables first, then the built-in ones; undefined when none lists it. */
export function protocolOf(version: string, tables: readonly Table[]): number | undefined {
  const key = versionKey(version);
  if (key === undefined) return undefined;
  for (const t of [...tables, builtInTable()]) {
    const p = t.get(key);
    if (p !== undefined) return p;
  }
  return undefined;
}

/** The operator's files (`compatibility:`), read each poll: a file that does not read or parse is named with why, and left out. */
export async function readTables(files: readonly string[]): Promise<{ tables: Table[]; errors: Record<string, string> }> {
  const tables: Table[] = [];
  const errors: Record<string, string> = {};
  for (const file of files) {
    try {
      // Sized before it is read: a wrong path (a log, a disk image) is never loaded whole.
      if ((await stat(file)).size > MAX_BYTES) throw new Error(`over ${MAX_BYTES} bytes`);
      const text = await readFile(file, 'utf8');
      tables.push(parseTable(JSON.parse(text) as unknown));
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      errors[file] = typeof code === 'string' ? `cannot read it (${code})` : err instanceof Error ? err.message.slice(0, 200) : String(err);
    }
  }
  return { tables, errors };
}
