import { describe, it } from 'vitest';
import { secretsScenario } from './secrets-scenario.js';

// A body that quotes the webhook URL (a proxy echoing the request) must not leak it.
describe('secrets, with Slack echoing the webhook URL in its error body', () => {
  it('never reach the log, `outbox --json`, /metrics or the alerts sent about the failure', async ({ onTestFinished }) => {
    await secretsScenario(onTestFinished, (webhookUrl) => `error ${webhookUrl}`);
  }, 45_000);
});
