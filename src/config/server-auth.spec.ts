import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './load.js';

const tmp = mkdtempSync(join(tmpdir(), 'avawatch-auth-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function load(name: string, yaml: string, env: NodeJS.ProcessEnv = {}) {
  const file = join(tmp, name);
  writeFileSync(file, yaml);
  return { file, loaded: loadConfig(file, env) };
}

describe('server.auth', () => {
  it('reads the token from the environment and keeps it a secret', () => {
    const { loaded } = load('env.yaml', 'server:\n  listen: 0.0.0.0:9464\n  auth:\n    token: ${AVAWATCH_TOKEN}\n', { AVAWATCH_TOKEN: 'tok-3f9a1c77e2' });
    expect(loaded.config.server.auth?.token?.reveal()).toBe('tok-3f9a1c77e2');
    expect(JSON.stringify(loaded.config)).not.toContain('tok-3f9a1c77e2');
    expect(loaded.secrets.map((s) => s.reveal())).toContain('tok-3f9a1c77e2');
  });

  it('reads tokenFile and passwordFile relative to the config, and both secrets are scrubbed', () => {
    writeFileSync(join(tmp, 'token'), 'file-token-8d2e41\n');
    writeFileSync(join(tmp, 'password'), 'file-password-77c1\n');
    const { loaded } = load('files.yaml', 'server:\n  listen: 0.0.0.0:9464\n  auth:\n    tokenFile: token\n    username: prometheus\n    passwordFile: password\n');
    expect(loaded.config.server.auth?.token?.reveal()).toBe('file-token-8d2e41');
    expect(loaded.config.server.auth?.password?.reveal()).toBe('file-password-77c1');
    expect(loaded.config.server.auth?.username).toBe('prometheus');
    expect(loaded.secrets.map((s) => s.reveal()).sort()).toEqual(['file-password-77c1', 'file-token-8d2e41']);
    expect(loaded.warnings.filter((w) => w.includes('server.listen'))).toEqual([]);
  });

  it('an empty token file is an error, never "no auth"', () => {
    writeFileSync(join(tmp, 'empty'), '\n');
    expect(() => load('empty.yaml', 'server:\n  auth:\n    tokenFile: empty\n')).toThrow(/server\.auth\.token: the token is empty/);
  });

  it('warns when the listener is reachable from other hosts and has no auth', () => {
    const { file, loaded } = load('open.yaml', 'server:\n  listen: ":9464"\n');
    expect(loaded.warnings).toContain(
      `${file}:2:11: server.listen: :9464 is reachable from other hosts and server.auth is not set: whoever reaches it reads /, /metrics and /api/v1/alerts (set server.auth, or listen on 127.0.0.1)`,
    );
    expect(load('loopback.yaml', 'server:\n  listen: 127.0.0.1:9464\n').loaded.warnings.filter((w) => w.includes('server.listen'))).toEqual([]);
  });
});
