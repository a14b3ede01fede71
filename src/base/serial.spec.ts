import { describe, expect, it } from 'vitest';
import { Serial } from './serial.js';

describe('Serial', () => {
  it('runs one task at a time, in the order given, and a failed one holds up no other', async () => {
    const serial = new Serial();
    const log: string[] = [];
    const task = (name: string, fail = false) => async () => {
      log.push(`${name} starts`);
      await Promise.resolve();
      await Promise.resolve();
      log.push(`${name} ends`);
      if (fail) throw new Error(name);
      return name;
    };
    const results = await Promise.allSettled([serial.run(task('a')), serial.run(task('b', true)), serial.run(task('c'))]);
    expect(log).toEqual(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['a', 'b', 'c']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
