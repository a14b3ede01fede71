import fc from 'fast-check';
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { evaluate } from './expr.js';

// evaluate reads a bare field name itself (the per-item key and field of a large page): what it
// gives must be what JSONata gives, for every name and value.

const names = fc.oneof(
  fc.constantFrom('nodeId', 'delegatorCount', 'and', 'or', 'in', 'true', 'false', 'null', 'function', 'toString', '__proto__', 'constructor', 'a.b', '$x', 'x y', '`a`', '_', 'A1'),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/),
);
const values = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }));
const inputs = (name: fc.Arbitrary<string>) =>
  fc.oneof(
    fc.tuple(name, values).map(([n, v]) => JSON.parse(JSON.stringify({ [n]: v })) as unknown),
    fc.dictionary(fc.string({ maxLength: 6 }), values, { maxKeys: 3 }),
    fc.array(fc.dictionary(fc.string({ maxLength: 3 }), values, { maxKeys: 2 }), { maxLength: 2 }),
    values,
  );

describe('evaluate of a bare field name', () => {
  it('gives what JSONata gives, or fails as JSONata fails', async () => {
    await fc.assert(
      fc.asyncProperty(names, inputs(names), async (name, input) => {
        let expected: unknown;
        let failed = false;
        try {
          const v: unknown = await jsonata(name).evaluate(input, {});
          expected = Array.isArray(v) ? JSON.parse(JSON.stringify(v)) : v;
        } catch {
          failed = true;
        }
        if (failed) await expect(evaluate(name, input, {})).rejects.toThrow();
        else expect(await evaluate(name, input, {})).toEqual(expected);
      }),
      { numRuns: 500, seed: 20261127 },
    );
  });

  it('reads the field of a real item as it is', async () => {
    expect(await evaluate('nodeId', { nodeId: 'NodeID-1', delegatorCount: 3 }, {})).toBe('NodeID-1');
    expect(await evaluate('delegatorCount', { nodeId: 'NodeID-1', delegatorCount: 3 }, {})).toBe(3);
    expect(await evaluate('missing', { nodeId: 'NodeID-1' }, {})).toBeUndefined();
    expect(await evaluate('true', { true: 'a field' }, {})).toBe(true);
  });
});
