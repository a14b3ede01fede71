import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app/app.js';
import { captureStderr, startApp } from '../helpers/app.js';
import { avawatch } from '../helpers/cli.js';
import { onPrometheus, startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';

const TOKEN = 'scrape-token-0c4f9d2e7b';
const PASSWORD = 'scrape-password-61ad3f';

describe('server.auth', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'avawatch-auth-'));
    writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
    writeFileSync(join(dir, 'password'), `${PASSWORD}\n`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('avawatch check warns about a listener other hosts reach without auth, and names the auth it has without its secret', async () => {
    writeFileSync(join(dir, 'open.yaml'), 'server: {listen: ":9464"}\nruleFiles: []\n');
    const open = await avawatch(['-c', join(dir, 'open.yaml'), 'check']);
    expect(open.code).toBe(0);
    expect(open.stdout).toContain('server: :9464  reachable from other hosts, no auth (NOT PROTECTED: set server.auth)\n');
    expect(open.stderr).toContain('server.listen: :9464 is reachable from other hosts and server.auth is not set: whoever reaches it reads /, /metrics and /api/v1/alerts (set server.auth, or listen on 127.0.0.1)');

    writeFileSync(join(dir, 'closed.yaml'), 'server:\n  listen: 0.0.0.0:9464\n  auth: {tokenFile: token, username: prometheus, password: "${SCRAPE_PASSWORD}"}\nruleFiles: []\n');
    const closed = await avawatch(['-c', join(dir, 'closed.yaml'), 'check'], { env: { SCRAPE_PASSWORD: PASSWORD } });
    expect(closed.code).toBe(0);
    expect(closed.stdout).toContain('server: 0.0.0.0:9464  reachable from other hosts, auth: bearer token or basic (user prometheus) on /, /metrics and /api/v1/alerts\n');
    expect(closed.stderr).not.toContain('server.listen');
    expect(closed.stdout + closed.stderr).not.toMatch(new RegExp(`${TOKEN}|${PASSWORD}`));
  });

  describe('a real Prometheus scraping with the documented scrape configs', () => {
    let app: App;
    let prometheus: RunningPrometheus;
    let logs: string[];

    beforeAll(async () => {
      writeFileSync(
        join(dir, 'avawatch.yaml'),
        `api: {dataUrl: "http://127.0.0.1:9", retries: 0}\nstate: {path: "${join(dir, 'state.db')}"}\nserver:\n  listen: 127.0.0.1:0\n  auth: {tokenFile: token, username: prometheus, passwordFile: password}\nruleFiles: []\n`,
      );
      logs = captureStderr();
      app = await startApp(join(dir, 'avawatch.yaml'));
      const target = new URL(app.url as string).host;
      prometheus = await startPrometheus({
        targets: [target],
        job: 'no-credentials',
        moreJobs: `  - job_name: bearer
    authorization:
      credentials_file: ${join(dir, 'token')}
    static_configs:
      - targets: ['${target}']
  - job_name: basic
    basic_auth:
      username: prometheus
      password_file: ${join(dir, 'password')}
    static_configs:
      - targets: ['${target}']
`,
      });
    }, 60_000);

    afterAll(async () => {
      await prometheus?.stop();
      await app?.stop();
      vi.restoreAllMocks();
    });

    it('scrapes with the bearer token and with basic credentials; without them the target is down with a 401', async () => {
      // Prometheus scraping on its own wall clock (test/helpers/prometheus.ts, onPrometheus).
      const up = await onPrometheus(
        async () => {
          const samples = await prometheus.query('up');
          return samples.length === 3 ? Object.fromEntries(samples.map((s) => [s.metric['job'], s.value[1]])) : undefined;
        },
        'three scrapes',
        20_000,
      );
      expect(up).toEqual({ bearer: '1', basic: '1', 'no-credentials': '0' });
      const refused = (await prometheus.targets()).find((t) => t.health === 'down');
      expect(refused?.lastError).toMatch(/401/);
      expect((await prometheus.query('avawatch_build_info'))[0]?.metric['job']).toMatch(/^(bearer|basic)$/);
      expect((await fetch(`${app.url}/readyz`)).status).toBe(200); // probes carry no credentials
      expect(logs.join('')).not.toMatch(new RegExp(`${TOKEN}|${PASSWORD}`));
    });
  });
});
