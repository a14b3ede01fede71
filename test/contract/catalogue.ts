// The default world holds nothing: this puts every kind of item, in every status, on every
// network into it, then changes them as time passes. Sent through the control API.

const NODES = {
  active: ['NodeID-A1ctive7Xhw2mDxuDS44j42TCB6U5', 'NodeID-A2ctiveMFrZFVCXPv5iCn6M9K6Xd', 'NodeID-A3ctiveGWPcbFJZFfZreETSoWjPi', 'NodeID-A4ctiveNFBbbJ4qCmNaCzeW7sxErh', 'NodeID-A5ctiveP7oB2McjBGgW2NXXWVYjV', 'NodeID-A6ctive9xQ2mN4bV7cX1zL8kJ5hG'],
  history: 'NodeID-H1istory4fGhJkLzXcVbNmQwErTyU',
  pending: 'NodeID-P1endingQwErTyUiOpAsDfGhJkLz',
  removed: 'NodeID-R1emovedZxCvBnMaSdFgHjKlQwEr',
  /** No version, benched, unreachable, a full delegation capacity; its last validation paid nothing. */
  unhealthy: 'NodeID-U1nhealthyKjHgFdSaPoIuYtReWqZ',
  fuji: 'NodeID-F1ujiActiveMnBvCxZlKjHgFdSaP',
};
const ADDRESS = { a: '0xAbC0000000000000000000000000000000000001', b: '0xdef0000000000000000000000000000000000002' };
/** P-chain stakers and subnet owners (bare, as the service answers; filters may add P-/X-). */
const STAKER = { a: 'avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw', b: 'avax1qr4kz9ctkjm2pmsjk9rumadq8yzng9y0u2lgfh', fuji: 'fuji1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsaz7uyp' };
const SUBNETS = {
  plain: '2Hm6eGyCNtJ5h5rGcS1DFRxNp1Mrx8FTRQRr2s5L3aFcmJzRqg',
  evm: 'wenKDikJWAYQs3f2v9JhV86fC6kHZwkFZsuUBftnmgZ4QXPnu',
  l1: '2MpQ1ey2hkW6WD2ZrXdP3kGXKjEWr8nmRuYzfGJW9Lk1zAEJfX',
  fuji: 'nQCwF6V9y8VFjvMuPeQVWWYn6ba75518Dpf6ZMWZNb3NyTA94',
};

const TOKEN = { address: '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E', name: 'USD Coin', symbol: 'USDC', decimals: 6 };
const HOSTILE_TOKEN = { address: '0x1111111111111111111111111111111111111111', name: '<img src=x onerror=alert(1)>', symbol: '<!channel>\r\nBcc: x@example.com', decimals: 0 };
/** EVM activity of both addresses: coin, tokens (one hostile), internal calls, a failed transaction and a reverted call, on two chains. */
const EVM_HISTORY = [
  { txHash: '0xe1', from: ADDRESS.b, to: ADDRESS.a, value: '12.5', at: '-3h' },
  { txHash: '0xe2', from: ADDRESS.a, to: TOKEN.address, at: '-2h', erc20: [{ token: TOKEN, from: ADDRESS.a, to: ADDRESS.b, value: '99.5' }, { token: HOSTILE_TOKEN, from: ADDRESS.b, to: ADDRESS.a, value: 7 }] },
  { txHash: '0xe3', from: ADDRESS.b, to: ADDRESS.b, at: '-2h', internal: [{ from: ADDRESS.b, to: ADDRESS.a, value: 1 }, { from: ADDRESS.b, to: ADDRESS.a, value: 1, type: 'CREATE', reverted: true }] },
  { txHash: '0xe4', from: ADDRESS.a, to: ADDRESS.b, value: 3, at: '-1h', status: 'failed' },
  { chainId: 43113, txHash: '0xe5', from: ADDRESS.a, to: ADDRESS.a, value: '0.001', at: '-10m' },
];

export function catalogue(): Record<string, unknown> {
  const reward = ['avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw'];
  return {
    validations: [
      // The last one's poor uptime hides it from the bulk list when the default floor (90) is on.
      ...NODES.active.map((nodeId, i) => ({ nodeId, txHash: `active-${i}`, start: '-30d', end: `+${i + 1}h`, status: 'active', ...(i === 5 ? { uptimePerformance: 71.5 } : {}) })),
      { nodeId: NODES.history, txHash: 'history-old', start: '-400d', end: '-35d', status: 'completed' },
      { nodeId: NODES.history, txHash: 'history-now', start: '-30d', end: '+2d', status: 'active' },
      { nodeId: NODES.pending, txHash: 'pending-1', start: '+30m', end: '+20d', status: 'pending' },
      { nodeId: NODES.removed, txHash: 'removed-1', start: '-20d', end: '+10d', status: 'removed' },
      { nodeId: NODES.unhealthy, txHash: 'unhealthy-old', start: '-400d', end: '-31d', status: 'completed', reward: { validation: 0, delegation: 0 } },
      {
        nodeId: NODES.unhealthy,
        txHash: 'unhealthy-now',
        start: '-30d',
        end: '+3d',
        status: 'active',
        uptimePerformance: 88.5,
        version: null,
        health: { reachability: 62.5, benchedP: 12, benchedX: 0.5, benchedC: 60 },
        delegationCapacity: 0,
      },
      { network: 'fuji', nodeId: NODES.fuji, txHash: 'fuji-1', start: '-3d', end: '+14d', status: 'active' },
      { network: 'testnet', nodeId: NODES.fuji, txHash: 'fuji-0', start: '-40d', end: '-4d', status: 'completed' },
    ],
    delegations: [
      { txHash: 'del-active', nodeId: NODES.history, rewardAddresses: reward, amount: 25, start: '-10d', end: '+20d', status: 'active' },
      { txHash: 'del-pending', nodeId: NODES.active[0], rewardAddresses: reward, amount: '30.5', start: '+1d', end: '+30d', status: 'pending' },
      { txHash: 'del-done', nodeId: NODES.active[1], rewardAddresses: ['avax1other'], amount: 100, start: '-40d', end: '-1d', status: 'completed' },
      { txHash: 'del-unpaid', nodeId: NODES.unhealthy, rewardAddresses: reward, amount: 25, start: '-60d', end: '-31d', status: 'completed', reward: { net: 0 } },
      { network: 'fuji', txHash: 'del-fuji', nodeId: NODES.fuji, rewardAddresses: reward, amount: 25, start: '-1d', end: '+14d', status: 'active' },
    ],
    l1Validators: [
      { validationId: 'l1-steady', nodeId: NODES.active[2], subnetId: 'subnet-a', balance: 10, feePerSecond: 512 },
      { validationId: 'l1-draining', nodeId: NODES.active[3], subnetId: 'subnet-a', balance: '0.0001', feePerSecond: 1000 },
      { validationId: 'l1-retiring', nodeId: NODES.active[4], subnetId: 'subnet-b', balance: 5, weight: 20 },
      { network: 'fuji', validationId: 'l1-fuji', nodeId: NODES.fuji, subnetId: 'subnet-f', balance: 1 },
    ],
    icmMessages: [
      { messageId: '0xc1', from: ADDRESS.a, to: ADDRESS.b, sent: '-5m', status: 'pending', rewardName: '<!channel> token', rewardSymbol: '<script>' },
      { messageId: '0xc2', from: ADDRESS.a, to: ADDRESS.b, sent: '-40m', status: 'delivered' },
      { messageId: '0xc3', from: ADDRESS.b, to: ADDRESS.a, sent: '-60m', status: 'delivered_source_not_indexed' },
      { network: 'fuji', messageId: '0xc4', from: ADDRESS.a, to: ADDRESS.b, sent: '-2m', status: 'pending', sourceEvmChainId: '43113' },
    ],
    stakingTransactions: [
      { txHash: 'stake-delegator', txType: 'AddPermissionlessDelegatorTx', addresses: [STAKER.a], nodeId: NODES.history, amount: 25, start: '-10d', end: '+20d' },
      // Ends within the hour: the service stops listing it (only active staking is listed).
      { txHash: 'stake-validator', txType: 'AddPermissionlessValidatorTx', addresses: [`P-${STAKER.b}`, STAKER.a], nodeId: NODES.active[0], amount: 2000, start: '-30d', end: '+1h', rewardTxHash: '2sJ6UoPSrqkpdcNWvNFnudjRJdvxVLdXgDaGGD4mfhJm5aULHF' },
      { txHash: 'stake-legacy', txType: 'AddDelegatorTx', addresses: [STAKER.b], nodeId: NODES.active[1], amount: '30.5', start: '-2d', end: '+5d', block: '-3d' },
      { network: 'fuji', txHash: 'stake-fuji', addresses: [STAKER.fuji], nodeId: NODES.fuji, amount: 1, start: '-1d', end: '+14d' },
    ],
    subnets: [
      { subnetId: SUBNETS.plain, owners: [STAKER.a], created: '-400d' },
      { subnetId: SUBNETS.evm, owners: [STAKER.a, STAKER.b], threshold: 2, blockchains: [{ blockchainId: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5', name: 'Dexalot <b>Chain</b>', evmChainId: 432204 }] },
      {
        subnetId: SUBNETS.l1,
        owners: [STAKER.b],
        created: '-2d',
        isL1: true,
        conversionTx: '2Xz6kLZ5n2Y8mL5M6d6nqR2HtV2o2p5yWkfaQ7ChzZkwSwbVhN',
        manager: { blockchainId: '2LFmzhHDKxkreihEtPanVmofuFn63bsh8twnRXEbDhBtCJxURB', contractAddress: '0xfacade0000000000000000000000000000000000' },
        blockchains: [{ blockchainId: '2LFmzhHDKxkreihEtPanVmofuFn63bsh8twnRXEbDhBtCJxURB', name: 'custom-vm', vmId: 'mDV3QWRXfwgKUWb9sggkv4vQxAQR4y2CyKrt5pLZ5SzQ7EHBv' }],
      },
      { network: 'fuji', subnetId: SUBNETS.fuji, owners: [STAKER.fuji] },
    ],
    metrics: ['hour', 'day', 'week', 'month'].map((timeInterval) => ({ chainId: 43114, metric: 'txCount', timeInterval, value: 12000 })),
    evmTransactions: EVM_HISTORY,
    exports: { completeAfterPolls: 2, outcome: 'COMPLETED' },
    unknownNode: 'empty',
    proposedBlocks: [
      { nodeId: NODES.active[0], chain: 'c-chain', perHour: 12 },
      { nodeId: NODES.active[0], chain: 'p-chain', times: ['-3h', '-20m', '+2h'] },
      { nodeId: NODES.active[1], chain: 'x-chain', perHour: 1, from: '-6h' },
      { network: 'fuji', nodeId: NODES.fuji, chain: 'c-chain', perHour: 4 },
    ],
    signatureAggregator: [
      { txHash: TX_HASHES.signing, latencyMs: 5 },
      { txHash: TX_HASHES.failing, fail: 503 },
      { txHash: TX_HASHES.unknown, fail: 404 },
    ],
    ...LONG_TAIL,
  };
}

/** The long tail (src/sim/longtail.ts): NFT tokens of both kinds, a deployer's contracts of every ercType, a block, an asset's transactions. */
const LONG_TAIL = {
  nfts: [
    { collection: ADDRESS.a, tokenId: 1, minted: '-3d', metadataName: '<!channel> Ape #1', owner: ADDRESS.b },
    { collection: ADDRESS.a, tokenId: '2', minted: '-2d' },
    { collection: ADDRESS.b, tokenId: 9, ercType: 'ERC-1155', minted: '-1d', metadataName: 'Sword' },
  ],
  deployments: (['ERC-20', 'ERC-721', 'ERC-1155', 'UNKNOWN'] as const).map((ercType, i) => ({
    deployer: ADDRESS.b,
    address: `0x${String(i + 1).padStart(40, 'c')}`,
    ercType,
    txHash: `0xdeploy${i}`,
    deployed: `-${i + 1}d`,
    ...(i === 3 ? {} : { name: `Contract ${i}`, symbol: `C${i}` }),
  })),
  blockTransactions: [
    { block: 100, txHash: '0xb1', from: ADDRESS.a, to: ADDRESS.b, value: '1000000000000000000', at: '-1h' },
    { block: 100, txHash: '0xb2', from: ADDRESS.b, to: ADDRESS.a, at: '-1h' },
  ],
  assetTransactions: [
    { txHash: 'xtx-1', amount: '25000000000', from: 'avax1from', to: 'avax1to', at: '-2h', memo: '<script>' },
    { txHash: 'xtx-2', txType: 'ImportTx', amount: 1, from: 'avax1from', to: 'avax1to', at: '-1h' },
    { network: 'fuji', txHash: 'xtx-fuji', amount: 5, from: 'fuji1from', to: 'fuji1to', at: '-1h' },
  ],
};

/** Transactions the signature aggregator answers for (or fails on). */
const TX_HASHES = {
  signing: '2sJ6UoPSrqkpdcNWvNFnudjRJdvxVLdXgDaGGD4mfhJm5aULHF',
  failing: '2Xz6kLZ5n2Y8mL5M6d6nqR2HtV2o2p5yWkfaQ7ChzZkwSwbVhN',
  unknown: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM',
};

/** What happens next, by how far the clock moves first; a change sets one status of each kind, so some take two. */
export const CATALOGUE_STEPS: Array<[string, Array<Record<string, unknown>>]> = [
  [
    '5m',
    [
      { validator: { nodeId: NODES.active[0], status: 'completed' }, delegation: { txHash: 'del-active', status: 'completed' }, icm: { messageId: '0xc1', status: 'delivered' } },
      { delegation: { txHash: 'del-pending', status: 'active' }, l1Validator: { validationId: 'l1-retiring', deactivate: true }, exports: { completeAfterPolls: 1, outcome: 'COMPLETED_WITH_WARNING' } },
      // A deposit arrives, with a transfer in the same transaction.
      { evmTransactions: [{ txHash: '0xe6', from: ADDRESS.b, to: ADDRESS.a, value: 40, erc20: [{ token: TOKEN, from: ADDRESS.b, to: ADDRESS.a, value: '1000' }] }] },
    ],
  ],
  [
    '1h',
    [
      { validator: { nodeId: NODES.pending, status: 'active' }, icm: { messageId: '0xc4', status: 'delivered_source_not_indexed' }, exports: { completeAfterPolls: 3, outcome: 'FAILED' } },
      { l1Validator: { validationId: 'l1-draining', balance: 2 }, metrics: [{ chainId: 43114, metric: 'txCount', timeInterval: 'hour', value: 50 }] },
      // A node stops proposing, another starts; the aggregator fails differently, then signs again.
      { stopProposing: { nodeId: NODES.active[0], chain: 'c-chain' }, proposedBlocks: [{ nodeId: NODES.history, chain: 'c-chain', times: ['+30m', '+50m'] }] },
      { signatureAggregator: [{ txHash: TX_HASHES.failing, fail: 500 }, { txHash: TX_HASHES.unknown, fail: null }] },
      // It recovers in place: a version again, benched on one chain less, more uptime; a paid delegation.
      { validator: { nodeId: NODES.unhealthy, uptimePerformance: 93, version: 'avalanche/1.14.1', health: { benchedC: 0 }, delegationCapacity: '12.5' }, delegation: { txHash: 'del-done', reward: { gross: '1.5', net: '1.47' } } },
      // A subnet changes hands, becomes an L1 and gets a second chain; another stops being listed.
      { subnet: { subnetId: SUBNETS.evm, owners: [STAKER.b], threshold: 1, convertToL1: { txHash: '2dConversionTxQwErTyUiOpAsDfGhJkLzXcVbNm', manager: { blockchainId: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5', contractAddress: '0x0feedc0de0000000000000000000000000000000' } } } },
      { subnet: { subnetId: SUBNETS.evm, addBlockchain: { blockchainId: 'V3Pq5cvBn8bLr6dWbFmYjA8NzPh9C4GgRxXkz7MuTsSiEqDwo', name: 'second', evmChainId: 432205 } }, stakingTransactions: [{ txHash: 'stake-new', addresses: [STAKER.a], nodeId: NODES.history, amount: 100, start: '+1h', end: '+30d' }] },
      { subnet: { subnetId: SUBNETS.plain, listed: false } },
    ],
  ],
  [
    '1d',
    [
      { validator: { nodeId: NODES.fuji, status: 'completed' }, unknownNode: 'not-found' },
      { validator: { nodeId: NODES.unhealthy, version: null, health: { benchedP: 0, benchedX: 0 } } },
    ],
  ],
  // Its validation ends without a reward: unpaid, like the one before it.
  ['3d', [{ validator: { nodeId: NODES.unhealthy, status: 'completed', reward: { validation: 0 } } }]],
  // The long tail grows: a mint, a deployment, a transaction in the block, a transfer of the asset.
  [
    '1h',
    [
      {
        nfts: [{ collection: ADDRESS.a, tokenId: 3, minted: '+4d' }],
        deployments: [{ deployer: ADDRESS.b, address: `0x${'d'.repeat(40)}`, txHash: '0xdeploy9', deployed: '+4d' }],
        blockTransactions: [{ block: 100, txHash: '0xb3', from: ADDRESS.a, to: ADDRESS.a, at: '-1h' }],
        assetTransactions: [{ txHash: 'xtx-3', txType: 'ExportTx', amount: '7', from: 'avax1from', to: 'avax1to', at: '+4d' }],
      },
    ],
  ],
];

/** What the catalogue's walk must have seen (see facts() in sim-walk.ts). */
export const EVERY_VARIANT = [
  'validator active',
  'validator completed',
  'validator pending',
  'validator removed',
  'validator completed without a reward',
  'active validator without avalancheGoVersion',
  'active validator benched',
  'active validator with geolocation',
  'active validator without geolocation',
  'delegation active',
  'delegation pending',
  'delegation completed',
  'delegation completed without a reward',
  'L1 validator',
  'L1 validator with balance 0',
  'ICM message pending',
  'ICM message delivered',
  'ICM message delivered_source_not_indexed',
  'operation RUNNING',
  'operation COMPLETED',
  'operation COMPLETED_WITH_WARNING',
  'operation FAILED',
  'proposed blocks on p-chain',
  'proposed blocks on c-chain',
  'proposed blocks on x-chain',
  'signed message',
  'staking transaction AddPermissionlessDelegatorTx',
  'staking transaction AddPermissionlessValidatorTx',
  'staking transaction AddDelegatorTx',
  'staking transaction with a reward transaction',
  'subnet',
  'L1',
  'blockchain with an EVM genesis',
  'blockchain with an encoded genesis',
  'EVM transaction',
  'EVM transaction failed',
  'ERC-20 transfer',
  'EVM internal transaction',
  'EVM internal transaction reverted',
];
