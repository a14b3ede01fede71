import { describe, expect, it } from 'vitest';
import { validator } from '../../api/schemas.js';
import { issuesToProblems } from '../../base/issues.js';
import { formatProblem, YamlSource } from '../../base/source.js';
import { validatorSample } from '../../sim/samples.js';
import { PRIMARY_NETWORK } from '../fields.js';
import { validatorStatus } from './index.js';
import { spec, type Spec, type State } from './schema.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const OTHER = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';

/** What the operator reads for a rule body written as YAML: `file:line:col: path: message`. */
function problems(yaml: string): string[] {
  const source = new YamlSource('rules.yaml', yaml, {});
  const parsed = spec.safeParse(source.data);
  return parsed.success ? [] : issuesToProblems(source, parsed.error.issues).map(formatProblem);
}

describe('validator-status: the rule as written', () => {
  it('reads the primary network unless subnetId names another', () => {
    expect(spec.parse({ network: 'mainnet', nodeIds: [NODE, OTHER] })).toEqual({ network: 'mainnet', nodeIds: [NODE, OTHER], subnetId: PRIMARY_NETWORK });
    const l1 = '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM';
    const onL1 = spec.parse({ network: 'fuji', nodeIds: [NODE], subnetId: l1 });
    expect(validatorStatus.describe(onL1)).toContain(l1);
    expect(validatorStatus.describe(spec.parse({ network: 'fuji', nodeIds: [NODE] }))).toBe('fuji, 1 node');
  });

  it('a mistake is named where it was written', () => {
    expect(problems(`network: mainnet\nnodeIds:\n  - ${NODE}\n  - NodeID-123\nsubnet: x\n`)).toEqual([
      'rules.yaml:4:5: nodeIds[1]: expected a NodeID: "NodeID-" followed by base58 characters',
      'rules.yaml:5:1: subnet: unknown key "subnet"',
    ]);
    expect(problems(`network: devnet\nnodeIds: []\n`)).toEqual(['rules.yaml:1:10: network: expected one of mainnet, fuji, testnet, got "devnet"', 'rules.yaml:2:10: nodeIds: list at least one NodeID']);
  });
});

describe('validator-status: what it keeps across a restart', () => {
  /** The states as the engine reads them back from the state file: JSON, then the kind's state schema. */
  const restarted = (states: ReadonlyMap<string, State>) => new Map([...states].map(([node, st]) => [node, validatorStatus.state.parse(JSON.parse(JSON.stringify(st)))]));
  const s: Spec = { network: 'mainnet', nodeIds: [NODE], subnetId: PRIMARY_NETWORK };
  const A = { nodeId: NODE, txHash: 'txA', startTimestamp: 1_700_000_000, endTimestamp: 1_720_000_000 };
  const now = new Date('2026-01-01T00:00:00Z');

  it('a node not listed since before the restart is not said again; its last period and the listed gauge stand', () => {
    const listed = validatorStatus.evaluate(new Map(), [[validator.parse(validatorSample.active(A))]], now, s);
    const gone = validatorStatus.evaluate(listed.states, [[]], now, s);
    expect(gone.alerts).toHaveLength(1);
    const after = restarted(gone.states);
    expect(validatorStatus.evaluate(after, [[]], now, s).alerts).toEqual([]);
    expect(validatorStatus.samples(s, after, now).map((g) => `${g.metric.replace('avawatch_validator_', '')}${g.labels['status'] ? `{${g.labels['status']}}` : ''}=${g.value}`)).toEqual([
      'listed=0',
      'status{active}=1',
      `start_timestamp_seconds=${A.startTimestamp}`,
      `end_timestamp_seconds=${A.endTimestamp}`,
    ]);
  });

  it('a state row that is not one (another kind\'s, a broken one) is refused, never read as "nothing known"', () => {
    expect(validatorStatus.state.safeParse({ period: null }).success).toBe(false);
    expect(validatorStatus.state.safeParse({ missing: false }).success).toBe(false);
  });
});
