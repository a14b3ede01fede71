import { describe, expect, it } from 'vitest';
import { renderRuleGauges } from './registry.js';

const def = { name: 'avawatch_x', help: 'A help\\with a backslash\nand a newline.', labelNames: ['rule', 'node_id'] };

describe('rule gauges in the exposition format', () => {
  it('escapes label values and help text, and writes special values as Prometheus spells them', () => {
    const samples = [
      { metric: 'avawatch_x', labels: { rule: 'r', node_id: 'a"b\\c\nd' }, value: 1.5 },
      { metric: 'avawatch_x', labels: { rule: 'r', node_id: 'n' }, value: Number.NaN },
      { metric: 'avawatch_x', labels: { rule: 'r', node_id: 'm' }, value: -Infinity },
    ];
    expect([...renderRuleGauges([def], () => samples)].join('')).toBe(
      [
        '# HELP avawatch_x A help\\\\with a backslash\\nand a newline.',
        '# TYPE avawatch_x gauge',
        'avawatch_x{rule="r",node_id="a\\"b\\\\c\\nd"} 1.5',
        'avawatch_x{rule="r",node_id="n"} NaN',
        'avawatch_x{rule="r",node_id="m"} -Inf',
        '',
      ].join('\n'),
    );
  });

  it('comes in chunks of about 64 KB, cut between lines', () => {
    const samples = Array.from({ length: 5_000 }, (_, i) => ({ metric: 'avawatch_x', labels: { rule: 'r', node_id: `NodeID-${i}` }, value: i }));
    const chunks = [...renderRuleGauges([def], () => samples)];
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(c.length).toBeLessThan(64 * 1024 + 200);
      expect(c.endsWith('\n')).toBe(true);
    }
    expect(chunks.join('').split('\n').filter((l) => l.startsWith('avawatch_x{'))).toHaveLength(5_000);
  });
});
