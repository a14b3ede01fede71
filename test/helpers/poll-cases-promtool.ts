import { readFileSync } from 'node:fs';
import { stringify, parse as parseYaml } from 'yaml';

// test/fixtures/node/poll-success-cases.yaml, the poll success ratio's cases shared with the
// node-metrics kind, turned into a `promtool test rules` file for docs/prometheus/avalanchego.rules.yml.
export const POLL_CASES = 'test/fixtures/node/poll-success-cases.yaml';

export interface PollCase {
  name: string;
  successful: string;
  failed: string;
  expect: Array<'warning' | 'critical'>;
  tooFew?: boolean;
}

export function readPollCases(path = POLL_CASES): PollCase[] {
  return (parseYaml(readFileSync(path, 'utf8')) as { cases: PollCase[] }).cases;
}

const ALERT = { warning: 'AvalancheGoPollSuccessLow', critical: 'AvalancheGoPollSuccessCritical' } as const;
const DESCRIPTION = {
  warning: 'Under 95% of polls succeed: validators are not answering in time (check connected stake and benched peers).',
  critical: 'Under 90% of polls succeed: finalization slows, and stalls as connected stake nears 75%.',
} as const;
const EVAL_MINUTE = 20;
const WINDOW_MINUTES = 5;

/** promtool's series notation ("a+bxn", "a-bxn", "axn", "_", "_xn"), one value a minute (null: missing). */
export function expandSeries(notation: string): Array<number | null> {
  const out: Array<number | null> = [];
  for (const token of notation.trim().split(/\s+/)) {
    const m = /^(_|-?[\d.]+)(?:([+-][\d.]+)?x(\d+))?$/.exec(token);
    if (!m) throw new Error(`${POLL_CASES}: "${token}" is not promtool series notation`);
    const [, start, step, times] = m;
    if (start === '_') {
      for (let i = 0; i <= Number(times ?? 0); i++) out.push(null);
      continue;
    }
    if (times === undefined) out.push(Number(start));
    else for (let i = 0; i <= Number(times); i++) out.push(Number(start) + i * Number(step ?? 0));
  }
  return out;
}

/** A counter's increase over the samples of the 5m window ending at minute 20 (Prometheus 2.x: both ends in), resets corrected. */
function windowIncrease(values: Array<number | null>): number {
  const window = values.slice(EVAL_MINUTE - WINDOW_MINUTES, EVAL_MINUTE + 1).filter((v): v is number => v !== null);
  let increase = 0;
  for (let i = 1; i < window.length; i++) {
    const [prev, cur] = [window[i - 1] as number, window[i] as number];
    increase += cur >= prev ? cur - prev : cur;
  }
  return increase;
}

/** Go's `%.4g` of a percentage from 0 to 100, as `humanizePercentage` prints it. */
function goPercent(ratio: number): string {
  const v = ratio * 100;
  if (v === 0) return '0%';
  if (v < 1e-4 || v >= 1e4) throw new Error(`no exponent form here: ${v}`);
  return `${Number(v.toPrecision(4)).toString()}%`;
}

/** The success ratio at minute 20: both counters share their sample times, so rate()'s extrapolation cancels out. */
export function expectedRatio(c: PollCase): number {
  const ok = windowIncrease(expandSeries(c.successful));
  return ok / (ok + windowIncrease(expandSeries(c.failed)));
}

/** The promtool test file: one test per case (named after it), the verdict read at minute 20. */
export function pollCasesTestFile(cases: PollCase[], rulesFile: string): string {
  const tests = cases.map((c, i) => {
    const labels = { job: 'avalanchego', instance: `case-${i}:9650`, chain: 'C' };
    const selector = `{job="avalanchego",instance="${labels.instance}",chain="C"}`;
    return {
      name: c.name,
      interval: '1m',
      input_series: [
        { series: `avalanche_snowman_polls_successful${selector}`, values: c.successful },
        { series: `avalanche_snowman_polls_failed${selector}`, values: c.failed },
      ],
      alert_rule_test: (['warning', 'critical'] as const).map((severity) => ({
        eval_time: `${EVAL_MINUTE}m`,
        alertname: ALERT[severity],
        exp_alerts: c.expect.includes(severity)
          ? [
              {
                exp_labels: { severity, ...labels },
                exp_annotations: {
                  summary: `${labels.instance}: C-chain polls ${goPercent(expectedRatio(c))} successful`,
                  description: DESCRIPTION[severity],
                },
              },
            ]
          : [],
      })),
      // A chain too idle to judge is marked so (a recording rule), and only such a chain.
      promql_expr_test: [
        {
          expr: `count by (job, instance, chain) (instance_chain:avalanche_snowman_polls:too_few_to_judge)`,
          eval_time: `${EVAL_MINUTE}m`,
          exp_samples: c.tooFew ? [{ labels: `{chain="C",instance="${labels.instance}",job="avalanchego"}`, value: 1 }] : [],
        },
      ],
    };
  });
  return stringify({ rule_files: [rulesFile], evaluation_interval: '1m', tests });
}
