import { systemClock } from '../../base/clock.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AlertMessage, ChannelContext } from '../types.js';
import { aheadOf, AlertmanagerNotifier } from './index.js';
import type { PostableAlert } from './posted.js';

const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const T0 = Date.parse('2025-01-01T00:00:00Z');
const MINUTE = 60_000;

function ending(threshold: string, status: AlertMessage['status'] = 'firing'): AlertMessage {
  return {
    alertId: 0,
    rule: 'ending',
    kind: 'validation-end',
    status,
    severity: 'critical',
    subject: NODE,
    summary: `${NODE} validation ends soon`,
    labels: { node: NODE, threshold, rule: 'ending', severity: 'critical' },
    details: { 'Period ends': '2025-01-03T00:00:00Z' },
    at: new Date(T0).toISOString(),
    conditionKey: NODE,
  };
}

/** An Alertmanager stand-in on loopback: it keeps each post's alerts and answers 200 with `headers()`. */
async function standIn(posts: PostableAlert[][], headers: () => Record<string, string> = () => ({})): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as PostableAlert[]);
      res.writeHead(200, headers()).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

describe('alertmanager channel', () => {
  let server: Server;
  let posts: PostableAlert[][];
  let notifier: AlertmanagerNotifier;

  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    posts = [];
    server = await standIn(posts);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    notifier = new AlertmanagerNotifier({ name: 'am', type: 'alertmanager', url, resendInterval: MINUTE, timeout: 5_000, minInterval: 0 });
    const ctx: ChannelContext = { clock: systemClock, alertsUrl: undefined, untilNext: () => 5 * MINUTE };
    notifier.start(ctx);
  });

  afterEach(async () => {
    notifier.stop();
    vi.useRealTimers();
    await new Promise((r) => server.close(r));
  });

  const shown = (alerts: PostableAlert[] | undefined) => alerts?.map((a) => `${a.labels['threshold']} ends ${new Date(a.endsAt).toISOString()}`);

  it('a firing alert lives three times the wait for its rule’s next evaluation (when longer than three resend intervals)', async () => {
    await notifier.send([ending('3d')], new AbortController().signal);
    expect(shown(posts[0])).toEqual([`3d ends ${new Date(T0 + 15 * MINUTE).toISOString()}`]);
    expect(posts[0]?.[0]?.labels).toEqual({ alertname: 'ending', node: NODE, threshold: '3d', rule: 'ending', severity: 'critical', subject: NODE });
  });

  it('an escalated alert (new labels, same condition) ends its old label set in the same post', async () => {
    await notifier.send([ending('14d')], new AbortController().signal);
    vi.setSystemTime(T0 + 10_000);
    await notifier.send([ending('3d')], new AbortController().signal);
    expect(shown(posts[1])).toEqual([`3d ends ${new Date(T0 + 10_000 + 15 * MINUTE).toISOString()}`, `14d ends ${new Date(T0 + 10_000).toISOString()}`]);
    // The same labels again: nothing more to end.
    await notifier.send([ending('3d')], new AbortController().signal);
    expect(shown(posts[2])).toHaveLength(1);
  });

  it('rows queued during an outage, sent as one batch: only the last label set of a condition stays firing', async () => {
    await notifier.send([ending('14d')], new AbortController().signal);
    await notifier.send([ending('7d'), ending('3d')], new AbortController().signal);
    const end = (ms: number) => new Date(T0 + ms).toISOString();
    expect(shown(posts[1])).toEqual([`7d ends ${end(15 * MINUTE)}`, `3d ends ${end(15 * MINUTE)}`, `14d ends ${end(0)}`, `7d ends ${end(0)}`]);
    await notifier.send([ending('1d'), ending('1d', 'resolved')], new AbortController().signal);
    expect(shown(posts[2])).toEqual([`1d ends ${end(15 * MINUTE)}`, `1d ends ${end(0)}`, `3d ends ${end(0)}`]);
  });

  it('a resolved alert is forgotten: when it fires again with other labels, nothing old is ended', async () => {
    await notifier.send([ending('14d')], new AbortController().signal);
    await notifier.send([ending('14d', 'resolved')], new AbortController().signal);
    await notifier.send([ending('3d')], new AbortController().signal);
    expect(shown(posts[2])).toEqual([`3d ends ${new Date(T0 + 15 * MINUTE).toISOString()}`]);
  });

  it('links each alert to this daemon once started, and to externalUrl when set', async () => {
    notifier.start({ clock: systemClock, alertsUrl: 'http://10.0.0.5:9464/api/v1/alerts', untilNext: () => undefined });
    await notifier.send([ending('3d')], new AbortController().signal);
    expect(posts[0]?.[0]?.generatorURL).toBe('http://10.0.0.5:9464/api/v1/alerts');
    const own = new AlertmanagerNotifier({ ...notifier.receiver, externalUrl: 'https://avawatch.example/api/v1/alerts' });
    own.start({ clock: systemClock, alertsUrl: 'http://10.0.0.5:9464/api/v1/alerts', untilNext: () => undefined });
    await own.send([ending('3d')], new AbortController().signal);
    expect(posts[1]?.[0]?.generatorURL).toBe('https://avawatch.example/api/v1/alerts');
  });
});

describe("alertmanager channel, a host clock ahead of Alertmanager's", () => {
  let server: Server;
  let posts: PostableAlert[][];
  /** How far Alertmanager's clock (its Date header) stands behind this host's. */
  let behindMs = 0;

  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    posts = [];
    server = await standIn(posts, () => ({ date: new Date(Date.now() - behindMs).toUTCString() }));
  });

  afterEach(async () => {
    vi.useRealTimers();
    await new Promise((r) => server.close(r));
  });

  async function notifier(): Promise<AlertmanagerNotifier> {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const n = new AlertmanagerNotifier({ name: 'am', type: 'alertmanager', url, resendInterval: MINUTE, timeout: 5_000, minInterval: 0 });
    n.start({ clock: systemClock, alertsUrl: undefined, untilNext: () => MINUTE });
    return n;
  }

  it('a resolution ends at Alertmanager\'s now or before (as its last answer dated it), so it does not read it as still to come; it never ends before it starts', async () => {
    behindMs = 30_000;
    const am = await notifier();
    await am.send([ending('3d')], new AbortController().signal);
    vi.setSystemTime(T0 + MINUTE);
    await am.send([{ ...ending('3d', 'resolved'), at: new Date(T0 + MINUTE).toISOString() }], new AbortController().signal);
    const resolved = posts[1]?.[0];
    // Alertmanager's clock reads T0 + 30 s at this post: the end is no later.
    expect(Date.parse(resolved?.endsAt ?? '')).toBeLessThanOrEqual(T0 + MINUTE - 30_000);
    expect(Date.parse(resolved?.endsAt ?? '')).toBeGreaterThan(T0 + MINUTE - 32_000);
    expect(Date.parse(resolved?.startsAt ?? '')).toBeLessThanOrEqual(Date.parse(resolved?.endsAt ?? ''));
    am.stop();
  });

  it('an escalation ends the old label set at Alertmanager\'s now too, and before its start never', async () => {
    behindMs = 30_000;
    const am = await notifier();
    await am.send([ending('3d')], new AbortController().signal);
    await am.send([{ ...ending('1d'), at: new Date(T0).toISOString() }], new AbortController().signal);
    const old = posts[1]?.find((a) => a.labels['threshold'] === '3d');
    expect(Date.parse(old?.endsAt ?? '')).toBeLessThanOrEqual(T0 - 30_000);
    expect(Date.parse(old?.startsAt ?? '')).toBeLessThanOrEqual(Date.parse(old?.endsAt ?? ''));
    am.stop();
  });

  it("a host behind Alertmanager, or an answer without a Date, ends at the host's now; a clock off by hours counts as five minutes", async () => {
    behindMs = -30_000;
    const am = await notifier();
    await am.send([ending('3d')], new AbortController().signal);
    await am.send([ending('3d', 'resolved')], new AbortController().signal);
    expect(posts[1]?.[0]?.endsAt).toBe(new Date(T0).toISOString());
    am.stop();
    expect(aheadOf(null, T0)).toBe(0);
    expect(aheadOf('not a date', T0)).toBe(0);
    expect(aheadOf(new Date(T0 - 5 * 3_600_000).toUTCString(), T0)).toBe(5 * MINUTE);
  });
});
