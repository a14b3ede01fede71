import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { durationMs, httpUrl } from '../../base/fields.js';
import { network, nodeId } from '../fields.js';
import { upgradeTimes } from '../network.js';

/** A blockchain id (CB58), or the alias the node gives the chain (its check in /ext/health goes by it). */
const chain = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, 'expected a blockchain id (or the chain alias the node uses)');
/** The VM as info.getNodeVersion's vmVersions names it: its primary alias, or its VM ID when it has none. */
const vm = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, "expected the VM's name in info.getNodeVersion's vmVersions (its alias or VM ID)");

const file = z.string().refine(isAbsolute, 'expected an absolute path, e.g. /etc/avawatch/compatibility.json');

export const spec = z
  .strictObject({
    network: network.default('mainnet'),
    /** NodeID → the node's own API (http://127.0.0.1:9650); `validators:` fills it from the inventory's `api`. */
    urls: z.record(nodeId, httpUrl).refine((u) => Object.keys(u).length > 0, 'list at least one node: {NodeID-…: http://127.0.0.1:9650}'),
    /** The L1 chains each node must run, each with the VM (plugin) it runs: a chain whose VM is not loaded is critical. */
    l1s: z.array(z.strictObject({ name: z.string().min(1).max(60).optional(), chain, vm })).max(64).default([]),
    /** A node whose build does not know the next activation: a warning this long before it… */
    warnBefore: durationMs.default(7 * 86_400_000),
    /** …and critical this long before it. */
    criticalBefore: durationMs.default(86_400_000),
    /** Files in AvalancheGo's version/compatibility.json shape (or a plugin's own table), read before the shipped copy. */
    compatibility: z
      .union([file, z.array(file).max(16)])
      .transform((f) => (typeof f === 'string' ? [f] : f))
      .default([]),
    /** Upgrade times that replace the built-in schedule (the config's `networks.<network>.upgrades` fills it). */
    upgrades: upgradeTimes.optional(),
  })
  .refine((s) => s.criticalBefore <= s.warnBefore, { message: 'criticalBefore must not be longer than warnBefore', path: ['criticalBefore'] });
/** `noticeOn`: set by narrowing only (not in YAML): the full spec's first node, which alone says the compatibility files' notices. */
export type Spec = z.output<typeof spec> & { noticeOn?: string };

export const state = z.object({
  /** info.getNodeVersion's version, as the node wrote it (clipped). */
  version: z.string().optional(),
  /** The node's RPCChainVM protocol. */
  protocol: z.number().optional(),
  /** Plugin VMs loaded at the last answer: name → version. */
  vms: z.record(z.string(), z.string()).optional(),
  /** Each plugin's protocol, where a table lists its version. */
  protocols: z.record(z.string(), z.number()).optional(),
  /** Each plugin whose protocol is known: it speaks the protocol it must (the next activation's release's, else the node's). */
  compatible: z.record(z.string(), z.boolean()).optional(),
  /** rpcProtocolVersion as the node wrote it, when it is not a number. */
  badProtocol: z.string().optional(),
  /** The version each declared VM had when last loaded: named when it is gone. */
  lastLoaded: z.record(z.string(), z.string()).optional(),
  /** info.upgrades: upgrade name → the node's build's activation, unix seconds. */
  upgrades: z.record(z.string(), z.number()).optional(),
  /** Declared chains whose /ext/health check fails: chain → the node's error. */
  chainsFailing: z.record(z.string(), z.string()).optional(),
  /** Notices already said (bad input: each once, until it changes). */
  said: z.array(z.string()).optional(),
});
export type State = z.output<typeof state>;
