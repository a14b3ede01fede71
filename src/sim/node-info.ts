import { DEFAULT_NODE_VERSION, SAMPLE_POP, goFloat64, goTime, loadedL1Chains, primaryAlias, protocolOf, sortKeys, type RpcAnswer, type SimNode } from './node-state.js';

// A simulated node's /ext/info: info.* as api/info/service.go answers (docs/node-api-source.md).

function rpcError(message: string): RpcAnswer {
  return { error: { code: -32000, message, data: null } };
}

/** info.* as api/info/service.go answers; an unknown method as gorilla/rpc does ("can't find method"). */
export function infoAnswer(node: SimNode, method: string, params: Record<string, unknown>, now: number): RpcAnswer {
  switch (method) {
    case 'info.getNodeID':
      return {
        result: {
          nodeID: node.reportsNodeId ?? node.nodeId,
          nodePOP: node.blsPublicKey === null ? null : { publicKey: node.blsPublicKey, proofOfPossession: SAMPLE_POP },
        },
      };
    case 'info.getNodeVersion': {
      // vms/manager.go Versions: each VM that answered its Version call, by its primary alias; the
      // primary network's VMs report the node's own version (Coreth from v1.14.2; v0.15.4 at v1.14.1).
      const semver = node.version.replace(/^[^/]*\//, 'v');
      const evm = semver === 'v1.14.1' ? 'v0.15.4' : semver;
      const plugins = Object.fromEntries(loadedL1Chains(node).map((c) => [c.vmId, c.vmVersion]));
      return {
        result: {
          version: node.version,
          databaseVersion: 'v1.4.5',
          rpcProtocolVersion: String(protocolOf(node)),
          gitCommit: '1cf1fc3d1711a09fde7319d2b48609c8cba93680',
          vmVersions: sortKeys({ avm: semver, evm, platform: semver, ...plugins }),
        },
      };
    }
    case 'info.isBootstrapped': {
      const chain = typeof params['chain'] === 'string' ? params['chain'] : '';
      if (chain === '') return rpcError("argument 'chain' not given");
      const key = primaryAlias(chain) ?? chain;
      // An L1 chain is bootstrapped unless set otherwise; one whose plugin was refused does not exist.
      const l1 = loadedL1Chains(node).some((c) => c.id === key);
      const state = node.bootstrapped[key] ?? (l1 ? true : undefined);
      if (state === undefined) return rpcError(`there is no chain with alias/ID '${chain}'`);
      return { result: { isBootstrapped: state } };
    }
    case 'info.uptime':
      if (!node.validator) return rpcError("couldn't get node uptime: node is not a validator");
      return { result: { rewardingStakePercentage: goFloat64(node.rewardingStake), weightedAveragePercentage: goFloat64(node.weightedAverage) } };
    case 'info.upgrades':
      return { result: { ...UPGRADE_CONFIG[node.network], ...node.upgrades } };
    case 'info.peers':
      return { result: { numPeers: String(node.peers), peers: samplePeers(Math.min(node.peers, 3), now) } };
    default: {
      // The codec upper-cases the method's first letter before gorilla/rpc looks it up.
      const [service = '', fn = ''] = method.split('.', 2);
      if (/^[A-Z]/.test(fn)) return rpcError('method must start with a non-uppercase letter');
      const goName = `${service}.${fn.charAt(0).toUpperCase()}${fn.slice(1)}`;
      return rpcError(service === 'info' ? `rpc: can't find method "${goName}"` : `rpc: can't find service "${goName}"`);
    }
  }
}

/**
 * upgrade.Config as info.upgrades answers it (upgrade/upgrade.go: Mainnet and Fuji of the v1.15.0
 * builds; time.Time as RFC 3339, graniteEpochDuration in nanoseconds, the height a bare number).
 */
const UPGRADE_CONFIG: Record<'mainnet' | 'fuji', Record<string, unknown>> = {
  mainnet: {
    apricotPhase1Time: '2021-03-31T14:00:00Z',
    apricotPhase2Time: '2021-05-10T11:00:00Z',
    apricotPhase3Time: '2021-08-24T14:00:00Z',
    apricotPhase4Time: '2021-09-22T21:00:00Z',
    apricotPhase4MinPChainHeight: 793005,
    apricotPhase5Time: '2021-12-02T18:00:00Z',
    apricotPhasePre6Time: '2022-09-05T01:30:00Z',
    apricotPhase6Time: '2022-09-06T20:00:00Z',
    apricotPhasePost6Time: '2022-09-07T03:00:00Z',
    banffTime: '2022-10-18T16:00:00Z',
    cortinaTime: '2023-04-25T15:00:00Z',
    cortinaXChainStopVertexID: 'jrGWDh5Po9FMj54depyunNixpia5PN4aAYxfmNzU8n752Rjga',
    durangoTime: '2024-03-06T16:00:00Z',
    etnaTime: '2024-12-16T17:00:00Z',
    fortunaTime: '2025-04-08T15:00:00Z',
    graniteTime: '2025-11-19T16:00:00Z',
    graniteEpochDuration: 300_000_000_000,
    heliconTime: '2026-09-22T15:00:00Z',
  },
  fuji: {
    apricotPhase1Time: '2021-03-26T14:00:00Z',
    apricotPhase2Time: '2021-05-05T14:00:00Z',
    apricotPhase3Time: '2021-08-16T19:00:00Z',
    apricotPhase4Time: '2021-09-16T21:00:00Z',
    apricotPhase4MinPChainHeight: 47437,
    apricotPhase5Time: '2021-11-24T15:00:00Z',
    apricotPhasePre6Time: '2022-09-06T20:00:00Z',
    apricotPhase6Time: '2022-09-06T20:00:00Z',
    apricotPhasePost6Time: '2022-09-07T06:00:00Z',
    banffTime: '2022-10-03T14:00:00Z',
    cortinaTime: '2023-04-06T15:00:00Z',
    cortinaXChainStopVertexID: '2D1cmbiG36BqQMRyHt4kFhWarmatA1ighSpND3FeFgz3vFVtCZ',
    durangoTime: '2024-02-13T16:00:00Z',
    etnaTime: '2024-11-25T16:00:00Z',
    fortunaTime: '2025-03-13T15:00:00Z',
    graniteTime: '2025-10-29T15:00:00Z',
    graniteEpochDuration: 300_000_000_000,
    heliconTime: '2026-07-28T15:00:00Z',
  },
};

/** peer.Info plus benched, as info.peers lists them. */
function samplePeers(n: number, now: number): unknown[] {
  return Array.from({ length: n }, (_, i) => ({
    ip: `203.0.113.${10 + i}:9651`,
    publicIP: `203.0.113.${10 + i}:9651`,
    nodeID: ['NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', 'NodeID-NFBbbJ4qCmNaCzeW7sxErhvWqvEQMnYcN'][i] ?? `NodeID-${i}`,
    version: DEFAULT_NODE_VERSION,
    upgradeTime: 1_763_568_000,
    lastSent: goTime(now - 120),
    lastReceived: goTime(now - 95),
    observedUptime: '100',
    trackedSubnets: [],
    supportedACPs: [],
    objectedACPs: [],
    benched: [],
  }));
}
