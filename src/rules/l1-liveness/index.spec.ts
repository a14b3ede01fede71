import { describe, expect, it } from 'vitest';
import { NodeApiError } from '../../api/node-api.js';
import type { L1Validator } from '../../api/schemas.js';
import { l1Liveness, type L1Reading, type Observation } from './index.js';
import { spec as specSchema, type State } from './schema.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const SUBNET = '2XDnKyAEr1RhhWpTpMXqrjeejN23vETmDkA5H8aSsGLBj5d4Uh';
const CHAIN = '2tsLsNQUZfZnqDD9WBhTyj2XyMcmSGJHWTo7qFrVqzaiWvWbjN';
const spec = specSchema.parse({ network: 'mainnet', urls: { [NODE]: 'http://127.0.0.1:9650' }, subnets: { [NODE]: [SUBNET] } });
const MIN = 60_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');

const validators = (bigBalanceNavax: number): L1Validator[] => [
  { validationId: 'big', nodeId: 'NodeID-big', subnetId: SUBNET, remainingBalance: String(bigBalanceNavax), weight: 50 },
  { validationId: 'a', nodeId: 'NodeID-a', subnetId: SUBNET, remainingBalance: String(1e12), weight: 50 },
];
const down = { error: new NodeApiError('node 127.0.0.1:9650: connection refused', 'unreachable') };
const reading = (at: number, part: Partial<L1Reading>): L1Reading => ({
  subnetId: SUBNET,
  nodeId: NODE,
  blockchainId: { ok: CHAIN },
  epoch: { ok: { number: 56, startTime: 1_767_225_600, pChainHeight: 21_000_000 } },
  proposed: { ok: 21_000_000 + at / 2_000 },
  slot: at / 5_000,
  healthy: true,
  validators: validators(2e9 - 10_000 * (at / 1000)),
  ...part,
});

/** Polls at these minutes, each reading made by `part`; the last evaluation. */
function run(polls: Array<[number, Partial<L1Reading>]>) {
  let states: ReadonlyMap<string, State> = new Map();
  let last;
  for (const [minute, part] of polls) {
    const at = minute * MIN;
    const observation: Observation = { l1s: [reading(at, part)], steadyMs: at };
    last = l1Liveness.evaluate(states, observation, new Date(T0 + at), spec);
    states = last.states;
  }
  return last as NonNullable<typeof last>;
}
const checks = (e: ReturnType<typeof run>) => (e.conditions ?? []).map((c) => c.labels['check']).sort();

describe('l1-liveness evaluate', () => {
  it("a validation ID that is a name of Object's ('constructor', '__proto__') is an ID: read twice, measured, stored as its own key (found by the generated contract cases)", () => {
    const odd = (balance: number): L1Validator[] => ['constructor', '__proto__'].map((validationId) => ({ validationId, nodeId: `NodeID-${validationId}`, subnetId: SUBNET, remainingBalance: String(balance), weight: 50 }));
    const e = run([
      [0, { validators: odd(2e9) }],
      [20, { validators: odd(2e9 - 12_000_000) }],
    ]);
    const balances = [...e.states.values()][0]?.balances ?? {};
    expect(Object.keys(balances).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.hasOwn(balances, '__proto__') && balances['constructor']?.burnPerSecond).toBe(10_000);
  });

  it('the node connected to 62% of the weight: under the 80% consensus needs; unread, no word', () => {
    const e = run([[0, { slot: 1, connected: 0.62 }]]);
    expect(e.conditions?.find((c) => c.labels['check'] === 'connected')?.summary).toMatch(/: NodeID-7Xhw\S+ is connected to 62.0% of its weight, under the 80% consensus needs$/);
    expect(checks(run([[0, { slot: 1, connected: 0.98 }]]))).toEqual([]);
    expect(checks(run([[0, { slot: 1 }]]))).toEqual([]);
  });

  it('a frozen tip with a half-weight validator running dry: both said, with health green and the halt time', () => {
    const e = run([[0, {}], [20, {}]]);
    expect(checks(e)).toEqual(['forecast', 'frozen']);
    const frozen = e.conditions?.find((c) => c.labels['check'] === 'frozen');
    expect(frozen?.summary).toMatch(/^L1 \S+ \(chain \S+\) is frozen: its epoch has not advanced for 20m while the P-Chain moved 600 blocks, and this node's next turn to build is 20m past the tip .*; \/ext\/health answers healthy$/);
    expect(e.conditions?.find((c) => c.labels['check'] === 'forecast')?.summary).toMatch(/halts around 2026-01-03T07:33:20Z .* unless 1 validator\(s\) top up: NodeID-big/);
  });

  it('the node down: its frozen alert holds and the weight is still judged; the list failing: the forecast holds and the tip is still judged', () => {
    const nodeDown = run([[0, {}], [20, {}], [25, { epoch: down, proposed: down }]]);
    expect(checks(nodeDown)).toEqual(['forecast', 'frozen']);
    expect(Object.values(nodeDown.failed ?? {})[0]).toMatch(/did not answer: node 127.0.0.1:9650: connection refused/);
    const listDown = run([[0, {}], [20, {}], [25, { validators: 'the data service answered 503' }]]);
    expect(checks(listDown)).toEqual(['forecast', 'frozen']);
    expect(listDown.failed).toEqual({ [SUBNET]: 'the data service answered 503' });
  });

  it('an all-zero epoch after a real one (a node bootstrapping again) fires and resolves nothing: held, failing (found by the fuzzer, issue 40)', () => {
    const zeros = { epoch: { ok: { number: 0, startTime: 0, pChainHeight: 0 } } };
    const thawing = run([[0, {}], [20, {}], [21, zeros]]);
    expect(checks(thawing)).toEqual(['forecast', 'frozen']);
    expect(thawing.failed).toEqual({ [SUBNET]: expect.stringMatching(/answered an all-zero epoch after epoch 56/) });
    // The count of how long the epoch stood still is kept: past frozenAfter at the next reading, it fires.
    expect(checks(run([[0, {}], [10, {}], [16, zeros], [16.5, {}]]))).toEqual(['forecast', 'frozen']);
    // A node that never had a Granite epoch gives no verdict, and no failure.
    const pre = run([[0, zeros], [20, zeros]]);
    expect(checks(pre)).toEqual(['forecast']);
    expect(pre.failed).toEqual({});
  });

  it('a quiet chain (the node may build now: slot near) raises nothing; a new epoch number clears a frozen one', () => {
    expect(checks(run([[0, { slot: 1 }], [30, { slot: 2 }]]))).toEqual(['forecast']);
    const thawed = run([[0, {}], [20, {}], [25, { epoch: { ok: { number: 57, startTime: 1_767_227_100, pChainHeight: 21_000_750 } } }]]);
    expect(checks(thawed)).toEqual(['forecast']);
  });
});
