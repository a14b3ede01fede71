import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { activeValidator, completedValidator } from '../../src/sim/samples.js';
import { startSim } from '../../src/sim/server.js';
import { startLoggedApp } from '../helpers/app.js';
import { avawatch } from '../helpers/cli.js';
import { useFakeTime } from '../helpers/fake-time.js';
import { stateFile } from '../helpers/state-file.js';

// A webhook receiver whose server answers an error page that echoes the request path
// (Express' `Cannot POST /…`): the secret path must not reach the log, `avawatch outbox`,
// the outbox table or `notify-test`, neither whole nor any distinctive part of it.

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const SECRET_PATH = '/services/T0A7QX2K9/B0C3MZ8LQ/SuperSecretWebhookToken7Q?key=QueryS3cretK3y99';
const SECRET_PARTS = ['T0A7QX2K9', 'B0C3MZ8LQ', 'SuperSecretWebhookToken7Q', 'QueryS3cretK3y99'];

describe('a webhook that echoes its secret path in its error page', () => {
  it('never shows the path, or any segment of it, in the log, `outbox`, the outbox table or `notify-test`', async ({ onTestFinished }) => {
    // The daemon in this process on fake time, started from its file and environment as `avawatch run` does.
    const t = useFakeTime();
    onTestFinished(() => t.restore());
    let status = 503;
    const hook = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const page = `<!DOCTYPE html>\n<html lang="en"><head><title>Error</title></head><body><pre>Cannot POST ${req.url ?? ''}</pre></body></html>\n`;
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(page);
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const sim = await startSim();
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-hook-leak-'));
    onTestFinished(async () => {
      hook.closeAllConnections();
      await new Promise((r) => hook.close(r));
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}${SECRET_PATH}`;
    const now = sim.world.clock.now();
    const period = { nodeId: NODE, txHash: 'p', startTimestamp: now - 86_400, endTimestamp: now + 200 * 86_400 };
    sim.world.setValidators('mainnet', NODE, [activeValidator(period)]);
    const config = join(dir, 'avawatch.yaml');
    writeFileSync(
      config,
      `api: {dataUrl: "${sim.url}", metricsUrl: "${sim.url}", retries: 0, timeout: 2s}
state: {path: "${join(dir, 'state.db')}"}
server: {listen: "127.0.0.1:0"}
route: {receivers: [hook]}
receivers:
  - {name: hook, type: webhook, url: "\${HOOK_URL}", timeout: 2s}
delivery: {backoff: 50ms, backoffMax: 100ms}
ruleFiles: [rules.yaml]
`,
    );
    writeFileSync(join(dir, 'rules.yaml'), `rules:\n  - {name: my-validators, kind: validator-status, every: 1s, severity: critical, network: mainnet, nodeIds: [${NODE}]}\n`);
    const env = { HOOK_URL: url };

    const d = await startLoggedApp(t, config, env);
    onTestFinished(() => d.stop());
    const state = stateFile(join(dir, 'state.db'));
    await t.until(() => state.entities() >= 1, 'the baseline committed');
    // A change: one notification, which the webhook refuses with 503 (retried), then 404 (dead).
    sim.world.setValidators('mainnet', NODE, [completedValidator(period)]);
    await t.until(() => (d.log().match(/"reason":"http_503"/g)?.length ?? 0) >= 2, 'two 503 answers', { within: 15_000 });
    status = 404;
    await t.until(() => /dead-lettered/.test(d.log()), 'the 404 to dead-letter the row', { within: 15_000 });
    await d.stop();

    const outbox = await avawatch(['-c', config, 'outbox'], { cwd: dir, env });
    const outboxJson = await avawatch(['-c', config, 'outbox', '--json'], { cwd: dir, env });
    expect(outboxJson.code, outboxJson.stderr).toBe(0);
    const db = new Database(join(dir, 'state.db'), { readonly: true });
    const table = JSON.stringify(db.prepare('SELECT * FROM outbox').all());
    db.close();
    const files = readdirSync(dir)
      .filter((f) => f.startsWith('state.db'))
      .map((f) => readFileSync(join(dir, f)).toString('latin1'))
      .join('\n');
    status = 503;
    const test503 = await avawatch(['-c', config, 'notify-test', 'hook'], { cwd: dir, env });
    status = 404;
    const test404 = await avawatch(['-c', config, 'notify-test', 'hook'], { cwd: dir, env });

    const places = {
      log: d.log(),
      outbox: outbox.stdout + outbox.stderr,
      'outbox --json': outboxJson.stdout + outboxJson.stderr,
      'outbox table': table,
      'state file': files,
      'notify-test (503)': test503.stdout + test503.stderr,
      'notify-test (404)': test404.stdout + test404.stderr,
    };
    const leaks = Object.entries(places).flatMap(([where, text]) =>
      [SECRET_PATH.split('?')[0]!, ...SECRET_PARTS].filter((part) => text.includes(part)).map((part) => `"${part}" in ${where}`),
    );
    expect(leaks).toEqual([]);

    // What the operator does see: the status, and that the body was withheld.
    expect(d.log()).toContain('webhook receiver \\"hook\\": HTTP 503 (body not shown)');
    const rows = outboxJson.stdout.trim().split('\n').map((l) => JSON.parse(l) as { state: string; lastError: string | null });
    expect(rows).toEqual([expect.objectContaining({ state: 'dead', lastError: 'webhook receiver "hook": HTTP 404 (body not shown)' })]);
    expect(outbox.stdout).toContain('last error: webhook receiver "hook": HTTP 404 (body not shown)');
    expect(test503).toMatchObject({ code: 1, stderr: 'webhook receiver "hook": HTTP 503 (body not shown) (temporary: would be retried, reason http_503)\n' });
    expect(test404).toMatchObject({ code: 1, stderr: 'webhook receiver "hook": HTTP 404 (body not shown) (permanent, reason http_404)\n' });
  }, 60_000);
});
