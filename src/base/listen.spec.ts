import { describe, expect, it } from 'vitest';
import { describeAccess, isLoopback, parseListen } from './listen.js';

describe('server.listen', () => {
  it('parses host and port, brackets off an IPv6 address, no host for every interface', () => {
    expect(parseListen('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseListen('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
    expect(parseListen(':9464')).toEqual({ host: undefined, port: 9464 });
  });

  it('tells loopback from addresses other hosts reach', () => {
    for (const l of ['127.0.0.1:9464', '127.1.2.3:0', '[::1]:9464', 'localhost:9464', 'LOCALHOST:1', '[::ffff:127.0.0.1]:9464']) expect(isLoopback(l), l).toBe(true);
    for (const l of [':9464', '0.0.0.0:9464', '[::]:9464', '10.0.0.5:9464', 'avawatch.internal:9464', '128.0.0.1:9464']) expect(isLoopback(l), l).toBe(false);
  });

  it('the default listens on loopback', async () => {
    const { configSchema } = await import('../config/schema.js');
    expect(isLoopback(configSchema.parse({}).server.listen)).toBe(true);
  });
});

describe('describeAccess (avawatch check)', () => {
  it('says who can reach the server and what it asks for', () => {
    expect(describeAccess({ listen: '127.0.0.1:9464' })).toBe('loopback only, no auth');
    expect(describeAccess({ listen: ':9464' })).toBe('reachable from other hosts, no auth (NOT PROTECTED: set server.auth)');
    expect(describeAccess({ listen: ':9464', auth: { token: 'x' } })).toBe('reachable from other hosts, auth: bearer token on /, /metrics and /api/v1/alerts');
    expect(describeAccess({ listen: '[::1]:9464', auth: { token: 'x', username: 'prometheus' } })).toBe('loopback only, auth: bearer token or basic (user prometheus) on /, /metrics and /api/v1/alerts');
  });
});
