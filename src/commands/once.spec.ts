import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/errors.js';
import { failureLines } from './once.js';

const down = () => new ApiError('data API GET /v1/networks/mainnet/validators: HTTP 503: Service Unavailable', { api: 'data', endpoint: '/v1/networks/{network}/validators', status: 503, retryable: true, code: '503' });

describe('once: what failed', () => {
  it('one line for the service down, naming its rules; a rule failing for its own reason has its own line', () => {
    const failures = [...['a', 'b', 'c'].map((rule) => ({ rule, error: down() })), { rule: 'odd', error: new Error('data API /v1/x: unexpected response: validators.0.nodeId') }];
    expect(failureLines(failures)).toEqual([
      'the data service answers 503: 3 rules failed (a, b, c): data API GET /v1/networks/mainnet/validators: HTTP 503: Service Unavailable',
      'rule odd failed: data API /v1/x: unexpected response: validators.0.nodeId',
    ]);
  });
});
