import { describe, expect, it } from 'vitest';
import { summaryLines } from './summary.js';

describe('the demo summary', () => {
  it('counts per kind, adds kinds it was not told of, and names the kinds that printed nothing', () => {
    const lines = summaryLines(
      ['validator-status', 'validator-health', 'export'],
      [
        { kind: 'validator-status', status: 'event' },
        { kind: 'validator-health', status: 'firing' },
        { kind: 'validator-health', status: 'resolved' },
        { kind: 'rule-failing', status: 'firing' },
      ],
      'it stopped early',
    );
    expect(lines).toEqual([
      'What the Slack receiver printed, per rule kind:',
      '  kind              firing  resolved  events',
      '  validator-status       0         0       1',
      '  validator-health       1         1       0',
      '  export                 0         0       0',
      '  rule-failing           1         0       0',
      'Did not fire (1 of 3): export (it stopped early).',
    ]);
  });

  it('says so when every kind fired', () => {
    expect(summaryLines(['export'], [{ kind: 'export', status: 'event' }]).at(-1)).toBe('Every one of the 1 kinds fired.');
  });
});
