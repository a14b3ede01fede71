import { describe, expect, it } from 'vitest';
import { createLogger } from '../base/log.js';
import { Secret } from '../base/secret.js';
import { crashHandler } from './crash.js';

describe('a fault nothing handled in the daemon', () => {
  it('is logged as fatal with its stack, scrubbed of secrets, and ends the process with 1', () => {
    const lines: string[] = [];
    const sink = createLogger('info', false, (line) => lines.push(line));
    const key = 'gk-crash-7f3a9c1e5b2d4c6e8a0f';
    sink.setSecrets([new Secret(key)]);
    const codes: number[] = [];
    const err = Object.assign(new Error(`terminating connection (key ${key})`), { code: '57P01' });

    crashHandler(sink.log, 'a rejected promise', (code) => codes.push(code))(err);

    expect(codes).toEqual([1]);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '') as { level: number; msg: string; err: { stack: string; code: string } };
    expect(line.level).toBe(60);
    expect(line.msg).toMatch(/^stopped on a rejected promise nothing handled: terminating connection/);
    expect(line.err.stack).toContain('crash.spec.ts');
    expect(line.err.code).toBe('57P01');
    expect(lines[0]).not.toContain(key);
  });
});
