import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AlertMessage, ChannelContext } from '../types.js';
import { AlertmanagerNotifier } from './index.js';
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

describe('alertmanager channel', () => {
  let server: Server;
  let posts: PostableAlert[][];
  let notifier: AlertmanagerNotifier;
  let firing: AlertMessage[];
  const failed = vi.fn();

  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    posts = [];
    firing = [];
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        posts.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as PostableAlert[]);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    notifier = new AlertmanagerNotifier({ name: 'am', type: 'alertmanager', url, resendInterval: MINUTE, timeout: 5_000, minInterval: 0 });
    const ctx: ChannelContext = { now: () => new Date(), alertsUrl: undefined, firing: () => firing, untilNext: () => 5 * MINUTE, failed };
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

  it('re-posts only after an evaluation: once resendInterval has passed since its last post, or at once when its labels changed', async () => {
    const send = vi.spyOn(notifier, 'send');
    /** The n-th post made and answered (vi.waitFor would move the faked clock). */
    const posted = async (n: number) => {
      for (let i = 0; i < 500 && send.mock.calls.length < n; i++) await new Promise((r) => setTimeout(r, 5));
      expect(send).toHaveBeenCalledTimes(n);
      await send.mock.results[n - 1]?.value;
    };
    /** The re-post loop has looked (it waits one turn to gather evaluations that end together). */
    const looked = async () => {
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    };
    firing = [ending('14d')];
    notifier.evaluated('ending'); // never posted by this process: now
    await posted(1);
    vi.setSystemTime(T0 + 30_000);
    notifier.evaluated('ending'); // posted 30 s ago
    await looked();
    expect(send).toHaveBeenCalledTimes(1);
    firing = [ending('3d')];
    notifier.evaluated('ending'); // relabelled: now, ending the old label set
    await posted(2);
    expect(shown(posts[1])).toEqual([`3d ends ${new Date(T0 + 30_000 + 15 * MINUTE).toISOString()}`, `14d ends ${new Date(T0 + 30_000).toISOString()}`]);
    vi.setSystemTime(T0 + 30_000 + MINUTE);
    notifier.evaluated('ending'); // a resend interval later
    await posted(3);
    expect(shown(posts[2])).toEqual([`3d ends ${new Date(T0 + 30_000 + MINUTE + 15 * MINUTE).toISOString()}`]);
    expect(failed).not.toHaveBeenCalled();
  });

  it('evaluations that end together make one post, of every rule that has something due', async () => {
    const send = vi.spyOn(notifier, 'send');
    notifier.stop();
    notifier.start({ now: () => new Date(), alertsUrl: undefined, firing: (rule) => [{ ...ending('3d'), rule }], untilNext: () => undefined, failed });
    for (const rule of ['a', 'b', 'c']) notifier.evaluated(rule);
    await vi.waitFor(() => expect(posts).toHaveLength(1));
    expect(send).toHaveBeenCalledTimes(1);
    expect(posts[0]?.map((a) => a.labels['alertname'])).toEqual(['a', 'b', 'c']);
  });

  it('posts nothing after stop', () => {
    const send = vi.spyOn(notifier, 'send');
    firing = [ending('3d')];
    notifier.stop();
    notifier.evaluated('ending');
    expect(send).not.toHaveBeenCalled();
  });
});
