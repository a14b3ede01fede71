import { describe, expect, it } from 'vitest';
import { subnet, type Subnet } from './read.js';
import { subnetItem, type SubnetInput } from '../../sim/pchain.js';
import { severityOf } from '../../alerts/pipeline/enrich.js';
import { factsOf, subnetChanges, type Observation } from './index.js';
import { spec as specSchema } from './schema.js';

const ID = '2Hm6eGyCNtJ5h5rGcS1DFRxNp1Mrx8FTRQRr2s5L3aFcmJzRqg';
const OWNER = 'avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsq7g6vw';
const NEW_OWNER = 'avax1qr4kz9ctkjm2pmsjk9rumadq8yzng9y0u2lgfh';
const CHAIN = { blockchainId: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5', name: 'dexalot', vmId: 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy', evmChainId: 432204, createBlockTimestamp: 1_700_000_000 };
const MANAGER = { blockchainId: CHAIN.blockchainId, contractAddress: '0xfacade0000000000000000000000000000000000' };
const now = new Date('2026-01-15T12:00:00Z');
const s = specSchema.parse({ network: 'mainnet', subnetIds: [ID] });

/** A listed subnet as the service renders it, read with avawatch's schema. */
function item(o: Partial<SubnetInput> = {}): Subnet {
  return subnet.parse(subnetItem({ subnetId: ID, createBlockTimestamp: 1_690_000_000, owners: [OWNER], threshold: 1, locktime: 0, isL1: false, blockchains: [CHAIN], ...o }));
}
const seen = (x: Subnet): Observation => ({ subnets: { [x.subnetId]: factsOf(x) }, absent: [], failed: {} });
const absent: Observation = { subnets: {}, absent: [ID], failed: {} };

function changeOf(before: Subnet, after: Subnet) {
  const base = subnetChanges.evaluate(new Map(), seen(before), now, s);
  expect(base.alerts).toEqual([]);
  return subnetChanges.evaluate(base.states, seen(after), now, s);
}

describe('subnet-changes', () => {
  it('refuses an id that is not base58 or listed twice; reads 10,000 subnets a page by default', () => {
    expect(specSchema.parse({ network: 'mainnet', subnetIds: [ID] }).pageSize).toBe(10_000);
    expect(specSchema.safeParse({ network: 'mainnet', subnetIds: ['subnet-0'] }).error?.issues[0]?.message).toMatch(/^expected a subnet id/);
    expect(specSchema.safeParse({ network: 'mainnet', subnetIds: [ID, ID] }).error?.issues[0]?.message).toBe('a subnet id is listed twice');
  });

  it('an ownership change is one event, before → after', () => {
    const r = changeOf(item(), item({ owners: [NEW_OWNER, OWNER], threshold: 2 }));
    expect(r.alerts.map((a) => [a.summary, a.labels['change']])).toEqual([[`Subnet ${ID} ownership changed: 1 of [${OWNER}] → 2 of [${NEW_OWNER}, ${OWNER}]`, 'ownership']]);
    // Neutral news: info, unless the rule's severities.neutral says otherwise.
    expect(r.alerts.map((a) => [severityOf({ severity: 'critical' }, a), severityOf({ severity: 'critical', severities: { neutral: 'warning' } }, a)])).toEqual([['info', 'warning']]);
  });

  it('the L1 conversion is one event that names the transaction and the validator manager it came with', () => {
    const r = changeOf(item(), item({ isL1: true, conversionTx: '2dConversionTx', manager: MANAGER }));
    expect(r.alerts).toHaveLength(1);
    expect(r.alerts[0]).toMatchObject({
      subject: ID,
      summary: `Subnet ${ID} was converted to an L1 (isL1 false → true) by 2dConversionTx`,
      labels: { change: 'l1-conversion', subnet_id: ID, network: 'mainnet' },
      details: { Before: 'isL1 false', After: 'isL1 true', 'Validator manager': `${MANAGER.contractAddress} on ${MANAGER.blockchainId}` },
    });
  });

  it('a new validator manager of an L1 is one event, before → after', () => {
    const l1 = item({ isL1: true, conversionTx: '2dConversionTx', manager: MANAGER });
    const r = changeOf(l1, item({ isL1: true, conversionTx: '2dConversionTx', manager: { ...MANAGER, contractAddress: '0x0feedc0de0000000000000000000000000000000' } }));
    expect(r.alerts.map((a) => a.summary)).toEqual([
      `Subnet ${ID} validator manager changed: ${MANAGER.contractAddress} on ${MANAGER.blockchainId} → 0x0feedc0de0000000000000000000000000000000 on ${MANAGER.blockchainId}`,
    ]);
  });

  it('an EVM address in another case is the same address: no validator manager change', () => {
    const l1 = item({ isL1: true, conversionTx: '2dConversionTx', manager: { ...MANAGER, contractAddress: '0xFacAde0000000000000000000000000000000000' } });
    const r = changeOf(l1, item({ isL1: true, conversionTx: '2dConversionTx', manager: MANAGER }));
    expect(r.alerts).toEqual([]);
    // And back: still the same address, nothing said.
    expect(subnetChanges.evaluate(r.states, seen(l1), now, s).alerts).toEqual([]);
  });

  it('a blockchain added is one event with its name, id, VM and EVM chain id', () => {
    const added = { blockchainId: 'V3Pq5cvBn8bLr6dWbFmYjA8NzPh9C4GgRxXkz7MuTsSiEqDwo', name: 'second <b>chain</b>', vmId: CHAIN.vmId, evmChainId: 432205, createBlockTimestamp: 1_700_000_100 };
    const r = changeOf(item(), item({ blockchains: [CHAIN, added] }));
    expect(r.alerts).toHaveLength(1);
    expect(r.alerts[0]).toMatchObject({
      summary: `Subnet ${ID} has a new blockchain "second <b>chain</b>" (${added.blockchainId}, VM ${CHAIN.vmId}, EVM chain id 432205): blockchains 1 → 2`,
      labels: { change: 'blockchain-added', blockchain_id: added.blockchainId },
    });
  });

  it('the same subnet read again says nothing', () => {
    expect(changeOf(item(), item()).alerts).toEqual([]);
  });

  it('absent from a complete list: one warning, then nothing while it stays absent; never seen is said too', () => {
    const base = subnetChanges.evaluate(new Map(), seen(item()), now, s);
    const gone = subnetChanges.evaluate(base.states, absent, now, s);
    expect(gone.alerts.map((a) => [a.severity, a.summary])).toEqual([['warning', `Subnet ${ID} is not listed: absent from the complete subnet list of mainnet (it was listed before)`]]);
    expect(subnetChanges.evaluate(gone.states, absent, now, s).alerts).toEqual([]);
    // Back with a new owner: compared with what it showed before it went.
    const back = subnetChanges.evaluate(gone.states, seen(item({ owners: [NEW_OWNER] })), now, s);
    expect(back.alerts.map((a) => a.labels['change'])).toEqual(['ownership']);
    expect(subnetChanges.evaluate(new Map(), absent, now, s).alerts.map((a) => a.summary)).toEqual([`Subnet ${ID} is not listed: absent from the complete subnet list of mainnet`]);
  });

  it('a list cut off before the subnet is no absence: nothing is sent, its state is kept, it is named failing', () => {
    const base = subnetChanges.evaluate(new Map(), seen(item()), now, s);
    const cut = subnetChanges.evaluate(base.states, { subnets: {}, absent: [], failed: { [ID]: 'not in the first 20 pages' } }, now, s);
    expect(cut.alerts).toEqual([]);
    expect(cut.states).toEqual(base.states);
    expect(cut.failed).toEqual({ [ID]: 'not in the first 20 pages' });
  });

  it('a field sent in another shape reads as absent and keeps what held: no event, none later', () => {
    const base = subnetChanges.evaluate(new Map(), seen(item()), now, s);
    const odd = { ...item(), subnetOwnershipInfo: undefined, ownerAddresses: undefined, blockchains: undefined, isL1: undefined };
    const blip = subnetChanges.evaluate(base.states, seen(odd), now, s);
    expect(blip.alerts).toEqual([]);
    expect(subnetChanges.evaluate(blip.states, seen(item()), now, s).alerts).toEqual([]);
  });

  it('gauges: listed, isL1 and the number of blockchains', () => {
    const base = subnetChanges.evaluate(new Map(), seen(item({ isL1: true, blockchains: [CHAIN, { ...CHAIN, blockchainId: 'other' }] })), now, s);
    const g = (states: typeof base.states) => Object.fromEntries(subnetChanges.samples(s, states, now).map((x) => [x.metric, x.value]));
    expect(g(base.states)).toEqual({ avawatch_subnet_listed: 1, avawatch_subnet_is_l1: 1, avawatch_subnet_blockchains: 2 });
    expect(g(subnetChanges.evaluate(base.states, absent, now, s).states)['avawatch_subnet_listed']).toBe(0);
  });

  it('costs one page of the list (20 CU) a poll, more on a network with more subnets than a page', () => {
    const cost = subnetChanges.cost(s);
    expect(cost.calls).toEqual([{ api: 'data', cu: 20, key: 'GET /v1/networks/mainnet/subnets?pageSize=10000&sortOrder=desc' }]);
    expect(cost.more).toMatch(/^one more page \(20 CU\) per further 10,000 subnets/);
  });
});

describe('subnet-changes reads the list', () => {
  /** The primary network's reader, as the kind's read.ts asks it: pages of 2, honouring `enough` and the page bound (`partial`), counting pages. */
  function fakeData(items: Subnet[], maxPages: number) {
    let pages = 0;
    const primary = {
      options: { maxPages },
      list: async (q: { partial?: boolean; enough?: (page: readonly Subnet[]) => boolean }) => {
        const out: Subnet[] = [];
        for (let p = 0; p * 2 < items.length; p++) {
          const page = items.slice(p * 2, p * 2 + 2);
          pages++;
          out.push(...page);
          if (q.enough?.(page)) return { items: out, complete: true };
          if (pages >= maxPages && (p + 1) * 2 < items.length) {
            if (q.partial !== true) throw new Error(`more than ${maxPages} pages`);
            return { items: out, complete: false };
          }
        }
        return { items: out, complete: true };
      },
    };
    return { data: { primary }, pages: () => pages };
  }
  const others = (n: number) => Array.from({ length: n }, (_, i) => item({ subnetId: `Other${i}`.padEnd(40, 'x') }));
  const observe = (data: unknown) => subnetChanges.observe(s, { data, previous: new Map(), now, signal: new AbortController().signal } as never);

  it('stops at the page where every watched subnet is found', async () => {
    const { data, pages } = fakeData([...others(3), item(), ...others(10)], 20);
    const o = await observe(data);
    expect(pages()).toBe(2);
    expect(Object.keys(o.subnets)).toEqual([ID]);
  });

  it('a watched subnet missing from the whole list is absent; from a list cut off, it is failing', async () => {
    expect((await observe(fakeData(others(5), 20).data)).absent).toEqual([ID]);
    const cut = await observe(fakeData(others(5), 2).data);
    expect([cut.absent, Object.keys(cut.failed)]).toEqual([[], [ID]]);
    expect(cut.failed[ID]).toBe('not in the first 2 pages of the subnet list (10,000 a page): raise api.maxPages');
  });
});
