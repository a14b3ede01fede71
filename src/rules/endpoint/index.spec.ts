import { describe, expect, it } from 'vitest';
import { withEndpointRule } from '../../../test/helpers/endpoint-rule.js';
import { endpoint } from './index.js';
import { applyChange, worldChange } from '../../sim/scenario.js';
import { spec as specSchema, type Spec } from './schema.js';

const COLLECTION = '0x71B5Ac9C7e9fbdC5D1A5B5E1A1E0a5C5c5A5d5E5';
const DEPLOYER = '0x9f8c163cBA728e99993ABe7495F06c0A3c8Ac8b9';
const AVAX = 'FvwEAhmxKfeiG8SnEvq42hc6whRyY3EFYAvebMqDNDGCgxN5Z';

const nftRule = (extra: Record<string, unknown> = {}) =>
  specSchema.parse({
    path: '/v1/chains/{chainId}/nfts/collections/{address}/tokens',
    params: { chainId: 43114, address: COLLECTION },
    items: 'tokens',
    key: 'tokenId',
    mode: 'new',
    summary: 'New NFT #{tokenId} minted in {$params.address}: {metadata.name}',
    ...extra,
  });

describe('endpoint', () => {
  const f = withEndpointRule();
  const run = (s: Spec, pageSize = 100) => f.run(s, { pageSize });

  const change = (c: Record<string, unknown>) => applyChange(f.sim.world, worldChange.parse(c), f.sim.world.clock.nowMs());
  const nft = (tokenId: number, minted: string, metadataName?: string) => ({ nfts: [{ collection: COLLECTION, tokenId, minted, ...(metadataName ? { metadataName } : {}) }] });

  describe('mode new', () => {
    it('is silent on the baseline, then sends one event per new item with its summary; hostile text stays data', async () => {
      change(nft(1, '-2d', 'Ape #1'));
      change(nft(2, '-1d', 'Ape #2'));
      expect((await run(nftRule())).alerts).toEqual([]);
      expect((await run(nftRule())).alerts).toEqual([]);
      change(nft(3, '-1m', '<!channel> free\nmint'));
      const { alerts } = await run(nftRule());
      expect(alerts.map((a) => [a.status, a.subject, a.summary, a.labels])).toEqual([
        ['event', '3', `New NFT #3 minted in ${COLLECTION}: <!channel> free mint`, { key: '3', mode: 'new' }],
      ]);
      expect(alerts[0]?.details).toEqual({ Endpoint: `GET /v1/chains/43114/nfts/collections/${COLLECTION}/tokens`, Key: '3' });
      expect((await run(nftRule())).alerts).toEqual([]);
    });

    it('without a summary says the key and the path', async () => {
      await run(nftRule({ summary: undefined }));
      change(nft(7, '-1m'));
      expect((await run(nftRule({ summary: undefined }))).alerts.map((a) => a.summary)).toEqual([`New item 7 in GET /v1/chains/43114/nfts/collections/${COLLECTION}/tokens`]);
    });

    it('reads newest first only until a page lists a known item', async () => {
      for (let i = 1; i <= 5; i++) change(nft(i, `-${10 - i}h`));
      await run(nftRule(), 2);
      const before = f.sim.requests.length;
      change(nft(6, '-1m'));
      expect((await run(nftRule(), 2)).alerts.map((a) => a.subject)).toEqual(['6']);
      expect(f.sim.requests.length - before).toBe(1);
    });

    it('counts only the items the filter keeps; a filter that throws fails its item', async () => {
      const s = specSchema.parse({
        path: '/v1/networks/mainnet/blockchains/x-chain/assets/{assetId}/transactions',
        params: { assetId: AVAX },
        items: 'transactions',
        filter: '$number(amountCreated[0].amount) >= 1000000000000',
        key: 'txHash',
        mode: 'new',
        summary: '{txHash} moved {$number(amountCreated[0].amount) / 1000000000} AVAX',
      });
      change({ assetTransactions: [{ txHash: 'old-big', amount: '2000000000000', from: 'a', to: 'b', at: '-1d' }] });
      expect((await run(s)).alerts).toEqual([]);
      change({ assetTransactions: [{ txHash: 'small', amount: '5', from: 'a', to: 'b', at: '-3m' }] });
      change({ assetTransactions: [{ txHash: 'big', amount: '3000000000000', from: 'a', to: 'b', at: '-2m' }] });
      change({ assetTransactions: [{ txHash: 'odd', amount: '0', from: 'a', to: 'b', at: '-1m' }] });
      f.sim.world.longTail.assetTxs.at(-1)!.amount = 'many';
      const result = await run(s);
      expect(result.alerts.map((a) => a.summary)).toEqual(['big moved 3000 AVAX']);
      expect(Object.keys(result.failed ?? {})).toEqual(['odd']);
      expect([...f.previous.keys()].sort()).toEqual(['baseline', 'item:big', 'item:old-big']);
    });

    it('an item listed at every read keeps its stored state within the hour (no row rewritten per read)', async () => {
      change(nft(1, '-1d'));
      await run(nftRule());
      const first = f.previous.get('item:1');
      f.sim.world.clock.advance(59 * 60_000);
      await run(nftRule());
      expect(f.previous.get('item:1')).toEqual(first);
      f.sim.world.clock.advance(2 * 60_000);
      // The simulator's clock also runs in real time: the read's second is between these two.
      const before = Math.floor(f.sim.world.clock.nowMs() / 1000);
      await run(nftRule());
      const after = Math.floor(f.sim.world.clock.nowMs() / 1000);
      const item = f.previous.get('item:1');
      const last = item && 'last' in item ? item.last : 0;
      expect([last >= before, last <= after]).toEqual([true, true]);
      expect(f.previous.get('item:1')).toEqual({ ...first, last });
    });

    it('keeps at most maxItems keys, the most recently listed', async () => {
      for (let i = 1; i <= 4; i++) change(nft(i, `-${10 - i}h`));
      await run(nftRule({ maxItems: 2 }));
      expect([...f.previous.keys()].sort()).toEqual(['baseline', 'item:1', 'item:2', 'item:3', 'item:4']);
      f.sim.world.longTail.nfts.splice(0, 2); // tokens 1 and 2 leave the list
      await run(nftRule({ maxItems: 2 }));
      expect([...f.previous.keys()].sort()).toEqual(['baseline', 'item:3', 'item:4']);
    });
  });

  describe('a failed read', () => {
    it('an answer whose items are not a list fails the read: nothing sent, state kept', async () => {
      change(nft(1, '-1d'));
      await run(nftRule());
      const kept = f.previous;
      f.sim.world.faults.push({ status: 200, body: JSON.stringify({ tokens: { oops: true } }) });
      await expect(run(nftRule())).rejects.toThrow(/data API \/v1\/chains\/43114\/nfts\/collections\/0x71B5.*\/tokens: unexpected response: items "tokens" gave an object, not a list/);
      f.sim.world.faults.push({ status: 200, body: JSON.stringify({ nextPageToken: '' }) });
      await expect(run(nftRule())).rejects.toThrow(/items "tokens" gave nothing, not a list/);
      expect(f.previous).toBe(kept);
      change(nft(2, '-1m'));
      expect((await run(nftRule())).alerts.map((a) => a.subject)).toEqual(['2']);
    });

    it('an expression that throws on one item fails that item only', async () => {
      change({ deployments: [{ deployer: DEPLOYER, address: '0xa1', txHash: '0x1', deployed: '-1d', name: 'Good' }] });
      const s = specSchema.parse({
        path: '/v1/chains/43114/contracts/{deployer}/deployments',
        params: { deployer: DEPLOYER },
        items: 'contracts',
        key: 'address',
        mode: 'new',
        summary: '{$uppercase(name)} deployed at {address}',
      });
      await run(s);
      // $uppercase of a number throws: that contract fails, the other still alerts.
      change({ deployments: [{ deployer: DEPLOYER, address: '0xa2', txHash: '0x2', deployed: '-2m', name: 'Token' }] });
      f.sim.world.longTail.deployments.push({ chainId: '43114', deployer: DEPLOYER, address: '0xa3', ercType: 'UNKNOWN', txHash: '0x3', deployed: f.sim.world.clock.now() });
      f.sim.world.longTail.deployments.at(-1)!.name = 7 as unknown as string;
      const result = await run(s);
      expect(result.alerts.map((a) => a.summary)).toEqual(['TOKEN deployed at 0xa2']);
      expect(Object.keys(result.failed ?? {})).toEqual(['0xa3']);
      expect(result.failed?.['0xa3']).toMatch(/\$uppercase\(name\)/);
      // Still new once it renders.
      f.sim.world.longTail.deployments.at(-1)!.name = 'Late';
      expect((await run(s)).alerts.map((a) => a.summary)).toEqual(['LATE deployed at 0xa3']);
    });

    it('an expression that runs too long is stopped and fails its item', async () => {
      change(nft(1, '-1d'));
      const s = nftRule({ summary: '{( $f := function($n) { $f($n + 1) }; $f(0) )}' });
      await run(s);
      change(nft(2, '-1m'));
      const result = await run(s);
      expect(result.alerts).toEqual([]);
      expect(result.failed?.['2']).toMatch(/Stack overflow|Evaluation timeout/);
    }, 10_000);
  });

  describe('mode condition', () => {
    const tps = (extra: Record<string, unknown> = {}) =>
      specSchema.parse({
        path: '/v1/avg_tps/{chainId}',
        params: { chainId: '43114' },
        items: 'results',
        // The day that ended last only: the running day is partial.
        filter: 'timestamp + 86400 <= $time and timestamp + 172800 > $time',
        key: '"latest day"',
        mode: 'condition',
        condition: 'value < 2',
        summary: 'C-chain average TPS {value} is under 2 (day of {$fromMillis(timestamp * 1000)})',
        ...extra,
      });

    it('fires per item while the condition holds and resolves when it stops', async () => {
      f.sim.world.setMetric('43114', 'avgTps', 'day', 25, f.sim.world.clock.now() - 40 * 86_400);
      const healthy = await run(tps());
      expect(healthy.conditions).toEqual([]);
      f.sim.world.setMetric('43114', 'avgTps', 'day', 1.5, f.sim.world.clock.now() - 3 * 86_400);
      const low = await run(tps());
      expect(low.conditions?.map((c) => [c.key, c.summary, c.resolvedSummary])).toEqual([
        ['latest day', expect.stringMatching(/^C-chain average TPS 1\.5 is under 2 \(day of \d{4}-\d\d-\d\dT00:00:00\.000Z\)$/), 'latest day in GET /v1/avg_tps/43114: no longer value < 2 (or no longer listed)'],
      ]);
      expect(low.conditions?.[0]?.details).toMatchObject({ Condition: 'value < 2' });
      f.sim.world.setMetric('43114', 'avgTps', 'day', 30, f.sim.world.clock.now() - 2 * 86_400);
      expect((await run(tps())).conditions).toEqual([]);
    });

    it('an item that leaves a list read whole resolves; a failed item keeps firing', async () => {
      const s = specSchema.parse({
        path: '/v1/networks/mainnet/blockchains/x-chain/assets/{assetId}/transactions',
        params: { assetId: AVAX },
        items: 'transactions',
        key: 'txHash',
        mode: 'condition',
        condition: '$number(amountCreated[0].amount) > 1000000000000',
      });
      const big = { txHash: 'tx-big', amount: '5000000000000', from: 'avax1a', to: 'avax1b', at: '-1h' };
      change({ assetTransactions: [big, { txHash: 'tx-small', amount: '1', from: 'avax1a', to: 'avax1b', at: '-2h' }] });
      expect((await run(s)).conditions?.map((c) => c.key)).toEqual(['tx-big']);
      f.sim.world.longTail.assetTxs[0]!.amount = 'lots'; // $number('lots') throws: the item fails
      const failing = await run(s);
      expect([failing.conditions?.map((c) => c.key), Object.keys(failing.failed ?? {})]).toEqual([['tx-big'], ['tx-big']]);
      f.sim.world.longTail.assetTxs.splice(0, 1);
      expect((await run(s)).conditions).toEqual([]);
    });

    it('a condition that gives no boolean fails the item; when every item fails, the read fails', async () => {
      change(nft(1, '-1d'));
      change(nft(2, '-1d'));
      const result = await run(nftRule({ mode: 'condition', condition: 'tokenId = "1" ? tokenId : false', summary: undefined }));
      expect(result.failed).toEqual({ '1': 'condition "tokenId = \\"1\\" ? tokenId : false" gave string "1", not true or false' });
      await expect(run(nftRule({ mode: 'condition', condition: 'tokenId', summary: undefined }))).rejects.toThrow(/every item failed: condition "tokenId" gave string "\d", not true or false/);
    });
  });

  describe('mode change', () => {
    const s = specSchema.parse({
      path: '/v1/chains/{chainId}/nfts/collections/{address}/tokens',
      params: { chainId: '43114', address: COLLECTION },
      items: 'tokens',
      key: 'tokenId',
      mode: 'change',
      field: 'metadata.name',
    });

    it('is silent on the baseline and for new items, then says before → after', async () => {
      change(nft(1, '-1d', 'Plain'));
      expect((await run(s)).alerts).toEqual([]);
      change(nft(2, '-1m', 'Other'));
      expect((await run(s)).alerts).toEqual([]);
      f.sim.world.longTail.nfts[0]!.metadataName = 'Renamed';
      const { alerts } = await run(s);
      expect(alerts.map((a) => [a.subject, a.summary])).toEqual([['1', `1 in GET /v1/chains/43114/nfts/collections/${COLLECTION}/tokens: metadata.name changed Plain → Renamed`]]);
      expect(alerts[0]?.details).toMatchObject({ Field: 'metadata.name', Before: 'Plain', After: 'Renamed' });
      expect((await run(s)).alerts).toEqual([]);
    });
  });

  it('gauges the items read and, in condition mode, those holding', async () => {
    change(nft(1, '-1d'));
    change(nft(2, '-1d'));
    const s = nftRule({ mode: 'condition', condition: 'tokenId = "2"', summary: undefined });
    const { states } = await run(s);
    expect(endpoint.samples(s, states, new Date())).toEqual([
      { metric: 'avawatch_endpoint_items', labels: {}, value: 2 },
      { metric: 'avawatch_endpoint_condition_items', labels: {}, value: 1 },
    ]);
  });
});

describe('endpoint keys', () => {
  const problems = (rule: Record<string, unknown>) =>
    specSchema.safeParse({ path: '/v1/avg_tps/{chainId}', params: { chainId: 43114 }, items: 'results', key: 'timestamp', mode: 'new', ...rule }).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];

  it('refuses an expression that does not compile, saying where', () => {
    expect(problems({ mode: 'condition', condition: 'value <' })).toEqual(['condition: not a valid JSONata expression: Unexpected end of expression (at character 7)']);
    expect(problems({ summary: 'TPS {value' })).toEqual(['summary: template: a "{" at character 4 is never closed']);
    expect(problems({ summary: 'TPS {value +}' })).toEqual(['summary: placeholder {value +}: not a valid JSONata expression: Unexpected end of expression (at character 7)']);
  });

  it('takes only a path of the service, with every placeholder filled', () => {
    expect(problems({ path: 'https://evil.example/v1/x' })).toEqual(['path: expected a path of the service starting with /v1/ or /v2/ (no host: the API URLs are set under api)']);
    expect(problems({ path: '/v1/chains/../operations/x', params: {} })).toEqual(['path: a "." or ".." segment: it would lead to another path']);
    expect(problems({ path: '/v1/chains/%2e%2e/x', params: {} })).toEqual(['path: a "." or ".." segment: it would lead to another path']);
    expect(problems({ path: '/v1/avg_tps/43114?x=1', params: {} })).toEqual(['path: a path has only letters, digits, - _ . ~ : % and {placeholders}: put query parameters under query']);
    expect(problems({ path: '/v1/avg_tps/{chain}' })).toEqual(['path: placeholder {chain} has no value under params', 'params.chainId: the path has no {chainId}']);
    expect(problems({ params: { chainId: '..' } })).toEqual(['params.chainId: a "." or ".." value would lead to another path']);
    expect(problems({ query: { pageToken: 'x' } })).toEqual(['query.pageToken: pageToken is set by the rule as it reads the pages']);
  });

  it('asks each mode for its own keys', () => {
    expect(problems({ mode: 'condition' })).toEqual(['condition: mode: condition needs a condition (a JSONata expression on the item)']);
    expect(problems({ mode: 'change' })).toEqual(['field: mode: change needs a field (a JSONata expression on the item)']);
    expect(problems({ condition: 'true', field: 'x' })).toEqual(['condition: condition belongs to mode: condition', 'field: field belongs to mode: change']);
  });

  it('prices one call on the budget of its API, and says the pages', () => {
    const parse = (rule: Record<string, unknown>) => specSchema.parse({ items: 'results', key: 'k', mode: 'new', ...rule });
    expect(endpoint.cost(parse({ path: '/v1/avg_tps/43114' }))).toEqual({
      calls: [{ api: 'metrics', cu: 100, key: 'GET /v1/avg_tps/43114' }],
      more: 'the first read lists up to 5 page(s); then further pages, up to 5, while a page lists no item seen before',
    });
    expect(endpoint.cost(parse({ path: '/v1/chains/43114/contracts/{a}/deployments', params: { a: DEPLOYER }, mode: 'condition', condition: 'true', maxPages: 2 }))).toEqual({
      calls: [{ api: 'data', cu: 20, key: `GET /v1/chains/43114/contracts/${DEPLOYER}/deployments?pageSize=100` }],
      more: 'up to 2 page(s) per evaluation',
    });
    expect(endpoint.cost(parse({ path: '/v2/networks/mainnet/metrics/validatorCount' })).calls[0]?.api).toBe('metrics');
  });
});
