import { z } from 'zod';
import type { NodeApi } from '../../api/node-api.js';

// info.getNodeVersion as api/info/service.go writes it (GetNodeVersionReply): `version`
// (version.Application's String(), "avalanchego/1.15.0"), `rpcProtocolVersion` (json.Uint32:
// a quoted number, "46"), `vmVersions` (vms/manager.go Versions(): each registered VM's
// primary alias, or its ID when it has none, → the version the VM reports). Only these are
// read; their values are checked by the kind, so an odd one is said, never a failed read.

/** VMs and the length of a name or version kept: the node's text is not ours to trust. */
const MAX_VMS = 64;
const MAX_TEXT = 120;

export interface NodeVersionInfo {
  version: string;
  /** As the node wrote it (a number in a string); the kind says when it is not one. */
  rpcProtocolVersion?: unknown;
  /** VM (primary alias or ID) → its version. Undefined when the answer had no map. */
  vmVersions: Record<string, string> | undefined;
}

export const nodeVersionInfoReply = z
  .looseObject({
    version: z.string().min(1),
    rpcProtocolVersion: z.unknown().optional(),
    // Walked as parsed (z.record drops a key named __proto__): any VM name is only a name.
    vmVersions: z.custom<Record<string, unknown> | null | undefined>((v) => v == null || (typeof v === 'object' && !Array.isArray(v))).catch(undefined),
  })
  .transform((r): NodeVersionInfo => ({
    version: r.version.slice(0, MAX_TEXT),
    rpcProtocolVersion: r.rpcProtocolVersion,
    vmVersions:
      r.vmVersions == null
        ? undefined
        : Object.fromEntries(
            Object.entries(r.vmVersions)
              .slice(0, MAX_VMS)
              .map(([vm, v]) => [vm.slice(0, MAX_TEXT), typeof v === 'string' ? v.slice(0, MAX_TEXT) : String(v).slice(0, MAX_TEXT)]),
          ),
  }));

export async function nodeVersionInfo(api: NodeApi, base: string, signal: AbortSignal): Promise<NodeVersionInfo> {
  return api.rpc(base, '/ext/info', 'info.getNodeVersion', {}, nodeVersionInfoReply, signal);
}

/** The node's RPCChainVM protocol (a json.Uint32, quoted or bare), or undefined when what it wrote is not one. */
export function protocolNumber(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : Number.NaN;
  return Number.isInteger(n) && n >= 0 && n <= 0xffff_ffff ? n : undefined;
}

/**
 * The VMs built into AvalancheGo (run in its process, not as RPCChainVM plugins): the
 * platform, AVM and EVM (C-Chain) VMs, by their primary alias and ID (utils/constants/vm_ids.go).
 */
export const BUILT_IN_VMS: ReadonlySet<string> = new Set([
  'platform',
  'avm',
  'evm',
  'rWhpuQPF1kb72esV2momhMuTYGkEb1oL29pt2EBXWmSy4kxnT',
  'jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq',
  'mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6',
]);
