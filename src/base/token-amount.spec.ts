import { describe, expect, it } from 'vitest';
import { ceilUnits, formatUnits, parseUnits, usableDecimals } from './token-amount.js';

describe('token amounts', () => {
  it('parses token units into base units exactly, at any number of decimals', () => {
    expect(parseUnits('1.5', 18)).toBe(1_500_000_000_000_000_000n);
    expect(parseUnits('1250.5', 6)).toBe(1_250_500_000n);
    expect(parseUnits('7', 0)).toBe(7n);
    expect(parseUnits('2.500', 1)).toBe(25n);
    expect(() => parseUnits('0.0000001', 6)).toThrow('"0.0000001" has more than 6 decimals');
    expect(() => parseUnits('1e21', 18)).toThrow('is not an amount');
  });

  it('rounds a minimum up to the next base unit, so a value at or above it is at or above the amount written', () => {
    expect(ceilUnits('0.0000001', 6)).toBe(1n);
    expect(ceilUnits('1000.000001', 6)).toBe(1_000_000_001n);
    expect(ceilUnits('0.10', 1)).toBe(1n);
  });

  it('formats base units without rounding or floats', () => {
    expect(formatUnits(123_456_789_012_345_678_901_234_567n, 18)).toBe('123456789.012345678901234567');
    expect(formatUnits(1_500_000n, 6)).toBe('1.5');
    expect(formatUnits(42n, 0)).toBe('42');
    expect([0, 77, 18].map(usableDecimals)).toEqual([true, true, true]);
    expect([-1, 78, 1.5, undefined].map(usableDecimals)).toEqual([false, false, false, false]);
  });
});
