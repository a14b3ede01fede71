import { describe, expect, it } from 'vitest';
import { nodeHealth } from './index.js';
import { spec as specSchema, type State } from './schema.js';

// The node's tile on the status page: what its last answer said, and the verdict on a silent API.

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const spec = (over: Record<string, unknown> = {}) => specSchema.parse({ urls: { [NODE]: 'http://10.0.0.5:9650' }, network: 'fuji', ...over });
const tile = (st: State, s = spec()) => nodeHealth.nodeView?.(s, new Map([[NODE, st]])).get(NODE);

describe('node-health nodeView: the node tile', () => {
  it('a node that answers: its version, peers, the asked chains in the rule\'s order, failing checks sorted, the service\'s view in words', () => {
    const view = tile({
      version: 'avalanchego/1.14.2',
      peers: 61,
      // X is not read yet, Z is no longer asked: neither is shown.
      bootstrapped: { C: false, Z: true, P: true },
      failing: { network: { error: 'e', contiguousFailures: 2 }, bls: { error: 'e', contiguousFailures: 1 } },
      outside: { active: true, uptime: 99.5, reachability: 100 },
    });
    expect(view).toEqual({
      network: 'fuji',
      version: 'avalanchego/1.14.2',
      peers: 61,
      bootstrapped: { P: true, C: false },
      failing: ['bls', 'network'],
      off: [],
      api: { answers: true },
      outside: 'listed active, uptime 99.5%, reachability 100%',
      verdict: undefined,
    });
    expect(Object.keys(view?.bootstrapped ?? {})).toEqual(['P', 'C']);
  });

  it('a node never read: nothing shown as known, no failing check, no chain', () => {
    expect(tile({})).toEqual({ network: 'fuji', version: undefined, peers: undefined, bootstrapped: {}, failing: [], off: [], api: { answers: true }, outside: undefined, verdict: undefined });
  });

  it('a silent API: since when and why (or "no answer"), and its APIs switched off', () => {
    expect(tile({ unreachableSince: 1_750_000_000, unreachable: 'connect ECONNREFUSED', off: ['health'] })).toMatchObject({ api: { answers: false, since: 1_750_000_000, error: 'connect ECONNREFUSED' }, off: ['health'] });
    expect(tile({ unreachableSince: 1_750_000_060 })?.api).toEqual({ answers: false, since: 1_750_000_060, error: 'no answer' });
  });

  it('the service\'s view: said once read, never with outside: false', () => {
    const st: State = { outside: { active: false } };
    expect(tile(st)?.outside).toBe('the service lists no active validation of it');
    expect(tile(st, spec({ outside: false }))?.outside).toBeUndefined();
  });

  it('the verdict on a silent API, in words: down, nothing tells, the path broken, or the view alone', () => {
    const verdict = (apiVerdict: State['apiVerdict']) => tile({ unreachableSince: 1, apiVerdict })?.verdict;
    expect(verdict({ tier: 'critical', view: 'listed active', why: 'its reachability is 40%, under 80%' })).toEqual({ tier: 'critical', text: 'the node is down: its reachability is 40%, under 80%' });
    expect(verdict({ tier: 'critical', view: 'listed active' })).toEqual({ tier: 'critical', text: 'the node is down: the network does not see it either' });
    expect(verdict({ tier: 'warning', view: 'unknown: the data service did not answer either' })).toEqual({ tier: 'warning', text: 'nothing tells whether the node is up (unknown: the data service did not answer either)' });
    expect(verdict({ tier: 'warning', view: 'listed active, uptime 99%' })).toEqual({ tier: 'warning', text: 'the network still sees it (listed active, uptime 99%): the path to its API is broken' });
    expect(verdict({ view: 'not read (outside: false)' })).toEqual({ tier: undefined, text: "the network's view is not read (outside: false)" });
  });
});
