import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { activeValidator, completedValidator, pendingValidator } from '../../src/sim/samples.js';
import { withDaemon } from '../helpers/daemon.js';
import { postText } from '../helpers/slack-receiver.js';
import { storedStates } from '../helpers/stored-states.js';

// Latency by severity, with the shipped route (config/avawatch.yaml: alerts about a validator
// grouped by it, groupWait 1m, groupInterval 5m): the daemon on a fake clock, the simulator and
// a Slack stand-in on loopback. A validator's first news and a critical after it each reach
// Slack after a poll and a second, neither after groupWait nor after groupInterval.

const ALPHA = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const DAY = 86_400;
const PERIOD = { nodeId: ALPHA, txHash: 'CuRrentPeriodTxHashk2iDm8SPW1r8T5nYqFZbd4zA3kGfQw', startTimestamp: 1_716_000_000, endTimestamp: 1_716_000_000 + 365 * DAY };
/** Fake time allowed for a message: a poll (10 s) and more, far below groupWait (1m) and groupInterval (5m). */
const SOON_MS = 30_000;

const shippedRoute = (parse(readFileSync(resolve('config/avawatch.yaml'), 'utf8')) as { route: { receivers: string[] } }).route;

describe('latency by severity (the shipped route)', () => {
  it('a validator\'s first news, and then a critical about it within groupInterval, each reach Slack after a poll, without waiting for groupWait (1m) or groupInterval (5m)', () =>
    withDaemon(
      {
        project: ({ dataUrl, webhookUrl, statePath }) => ({
          'avawatch.yaml': [
            'validators:',
            `  - { name: alpha, nodeId: ${ALPHA}, network: mainnet }`,
            `api: { dataUrl: "${dataUrl}", retries: 0, timeout: 2s }`,
            `state: { path: ${JSON.stringify(statePath)} }`,
            'server: { listen: 127.0.0.1:0 }',
            `route: ${JSON.stringify(shippedRoute)}`,
            'receivers:',
            `  - { name: ${shippedRoute.receivers[0]}, type: slack, webhookUrl: "${webhookUrl}", minInterval: 10ms, timeout: 2s }`,
            'ruleFiles: [rules.yaml]',
            '',
          ].join('\n'),
          'rules.yaml': ['rules:', '  - { name: my-validators, kind: validator-status, every: 10s, severity: critical, validators: all }', ''].join('\n'),
        }),
        before: (d) => d.sim.world.setValidators('mainnet', ALPHA, [pendingValidator(PERIOD)]),
      },
      async (d) => {
        await d.until(async () => (await storedStates(d.app.store, 'my-validators'))[ALPHA], 'the baseline poll');

        // Good news, the first about alpha: it does not wait groupWait (1m).
        d.sim.world.setValidators('mainnet', ALPHA, [activeValidator(PERIOD)]);
        const [first] = await d.slack.waitForPosts(1, SOON_MS);
        expect(postText(first!)).toContain('pending → active');

        // The validation ends without a reward: critical, and groupInterval (5m since the first message) does not hold it.
        d.sim.world.setValidators('mainnet', ALPHA, [completedValidator({ ...PERIOD, rewards: { validationRewardAmount: '0' } })]);
        const posts = await d.slack.waitForPosts(2, SOON_MS);
        expect(posts).toHaveLength(2);
        expect(posts[1]!.body.text).toMatch(/CRITICAL.*alpha .*validation ended without a reward/);
      },
    ));
});
