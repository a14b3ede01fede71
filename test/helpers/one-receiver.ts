import { storedStates } from './stored-states.js';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import { startDaemon, type Daemon } from './daemon.js';

// The daemon fixture with one receiver and one validator-status rule polling every second,
// past its baseline: delivery's retries, backoffs, Retry-After and timeouts run on fake time.

export const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
export const RULE = 'my-validators';
export const CHANGE = `${NODE} validation active → completed`;
const period = { nodeId: NODE, txHash: 'tx-reliability-1', startTimestamp: 1_716_000_000, endTimestamp: 1_747_536_000 };

type Finished = (fn: () => Promise<void> | void) => void;

export interface OneReceiver {
  /** A receiver's name and its YAML (one item of `receivers:`); `d` gives the fixture's Slack URL. */
  name: string;
  yaml: string | ((webhookUrl: string) => string);
}

export interface ReceiverDaemon extends Daemon {
  /** Makes the validator's next change happen (active → completed, then a new period: active from its start, ACP-41). */
  change(step?: 1 | 2): void;
}

export async function startReceiverDaemon(onTestFinished: Finished, receiver: OneReceiver, delivery = '{backoff: 50ms, backoffMax: 200ms}'): Promise<ReceiverDaemon> {
  const d = await startDaemon({
    project: (u) => ({
      'avawatch.yaml': `api: {dataUrl: "${u.dataUrl}", retries: 0, timeout: 2s}
state: {path: "${u.statePath}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [${receiver.name}]}
receivers:
  - ${typeof receiver.yaml === 'string' ? receiver.yaml : receiver.yaml(u.webhookUrl)}
delivery: ${delivery}
ruleFiles: [rules.yaml]
`,
      'rules.yaml': `rules:\n  - {name: ${RULE}, kind: validator-status, every: 1s, severity: critical, network: mainnet, nodeIds: [${NODE}]}\n`,
    }),
    logLevel: process.env['RELIABILITY_LOG'] ?? 'silent',
    before: (b) => b.sim.world.setValidators('mainnet', NODE, [activeValidator(period)]),
  });
  onTestFinished(() => d.stop());
  await d.until(async () => (await storedStates(d.app.store, RULE))[NODE], 'the baseline');
  const next = { ...period, txHash: 'tx-reliability-2', startTimestamp: period.endTimestamp + 60, endTimestamp: period.endTimestamp + 86_400 * 30 };
  return Object.assign(d, {
    change(step: 1 | 2 = 1) {
      d.sim.world.setValidators('mainnet', NODE, step === 1 ? [completedValidator(period)] : [completedValidator(period), activeValidator(next)]);
    },
  });
}
