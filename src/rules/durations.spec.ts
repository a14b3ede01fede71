import { describe, expect, it } from 'vitest';
import { formatDuration, formatElapsed, humanDuration } from '../base/duration.js';
import { exportKind } from './export/index.js';
import { spec as exportSpec } from './export/schema.js';
import { validator } from '../api/schemas.js';
import { validatorSample } from '../sim/samples.js';
import { validationEnd } from './validation-end/index.js';
import { spec as validationEndSpec } from './validation-end/schema.js';

// The durations in alert summaries, as an operator reads them: under a minute in seconds.

describe('durations in summaries', () => {
  it('an export past a sub-minute timeout says how long it has run, in seconds', () => {
    const T = 1_800_000_000;
    const spec = exportSpec.parse({ operationId: 'op-1', timeout: '30s' });
    const running = { operationId: 'op-1', operationType: 'TRANSACTION_EXPORT_EVM', operationStatus: 'RUNNING', createdAtTimestamp: T };
    const a = exportKind.evaluate(new Map(), { polled: running }, new Date((T + 10) * 1000), spec);
    const b = exportKind.evaluate(a.states, { polled: running }, new Date((T + 45) * 1000), spec);
    expect(b.conditions?.map((c) => c.summary)).toEqual(['Export op-1 has been running for 45s, past its 30s timeout']);
    const c = exportKind.evaluate(b.states, { polled: running }, new Date((T + 150) * 1000), spec);
    expect(c.conditions?.map((x) => x.summary)).toEqual(['Export op-1 has been running for 2m, past its 30s timeout']);
  });

  it('a validation that ends or ended less than a minute ago says when, as a time (true whenever it is read)', () => {
    const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
    const END = 1_800_000_000;
    const spec = validationEndSpec.parse({ network: 'mainnet', nodeIds: [NODE] });
    const period = { nodeId: NODE, txHash: 'tx1', startTimestamp: END - 365 * 86_400, endTimestamp: END };
    const summary = (seen: unknown, nowS: number) => validationEnd.evaluate(new Map(), { service: [[validator.parse(seen)]] }, new Date(nowS * 1000), spec).conditions?.[0]?.summary;
    expect(summary(validatorSample.active(period), END - 30)).toBe(`${NODE} validation ends within 1d, at 2027-01-15T08:00:00Z`);
    expect(summary(validatorSample.completed(period), END + 45)).toBe(`${NODE} validation ended 2027-01-15T08:00:00Z and no new period has started`);
  });

  it('formatElapsed: seconds under a minute, whole minutes above', () => {
    expect([0, 999, 1_000, 45_500, 59_999, 60_000, 150_000, 80_000_000, -5_000].map(formatElapsed)).toEqual(['0s', '0s', '1s', '45s', '59s', '1m', '2m', '22h13m', '0s']);
    expect(formatDuration(45_000)).toBe('45s');
  });
});

describe('humanDuration: a measured span for people, never milliseconds (issue 38)', () => {
  it('whole seconds, and whole minutes from an hour up', () => {
    expect([179_770, 59_400, 0, 3_600_000 + 95_000, 86_400_000 + 29_999].map(humanDuration)).toEqual(['3m', '59s', '0s', '1h2m', '1d']);
  });
});
