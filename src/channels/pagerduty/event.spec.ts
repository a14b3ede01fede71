import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Secret } from '../../base/secret.js';
import type { AlertMessage } from '../types.js';
import { dedupKey, eventBody, PAGERDUTY_LIMITS, pagerDutyEvent } from './event.js';
import { classify, pagerdutyChannel, type PagerDutyReceiver } from './index.js';

const KEY = 'R0UT1NGKEYabcdef0123456789abcdef';
const firing: AlertMessage = {
  alertId: 7,
  rule: 'ending',
  kind: 'validation-end',
  status: 'firing',
  severity: 'critical',
  subject: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
  summary: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation ends in 2d',
  labels: { rule: 'ending', severity: 'critical', node: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', threshold: '3d' },
  details: { Node: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg' },
  at: '2026-01-01T00:00:05.000Z',
  conditionKey: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
};

describe('PagerDuty events', () => {
  it('firing triggers, resolved resolves, with the same dedup_key for the condition', () => {
    expect(pagerDutyEvent(firing, KEY)).toEqual({
      routing_key: KEY,
      event_action: 'trigger',
      dedup_key: 'avawatch/ending/validation-end/NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
      payload: {
        summary: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg validation ends in 2d',
        source: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
        severity: 'critical',
        timestamp: '2026-01-01T00:00:05.000Z',
        component: 'validation-end',
        group: 'ending',
        class: 'condition',
        custom_details: { rule: 'ending', kind: 'validation-end', subject: firing.subject, labels: firing.labels, Node: firing.subject },
      },
      client: 'avawatch',
    });
    // A reminder, an escalation (new severity and threshold) and the resolve share the key.
    const later = { ...firing, alertId: 9, severity: 'warning' as const, labels: { ...firing.labels, threshold: '1d', severity: 'warning' } };
    expect(dedupKey(later)).toBe(dedupKey(firing));
    expect(pagerDutyEvent({ ...firing, alertId: 12, status: 'resolved' }, KEY)).toEqual({ routing_key: KEY, event_action: 'resolve', dedup_key: dedupKey(firing) });
  });

  it('an event gets a key of its own (its alert id); a long key is hashed within 255', () => {
    const event = { ...firing, status: 'event' as const };
    expect(dedupKey(event)).toBe('avawatch/ending/event/7');
    expect(dedupKey({ ...event, alertId: 8 })).not.toBe(dedupKey(event));
    const long = dedupKey({ ...firing, conditionKey: 'x'.repeat(400) });
    expect(long).toMatch(/^avawatch\/[0-9a-f]{64}$/);
  });

  it('keeps the summary within 1,024 characters on one line, and the event within 512 KB', () => {
    const big = pagerDutyEvent({ ...firing, summary: `line\r\nbreak ${'x'.repeat(5000)}`, details: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`d${i}`, 'y'.repeat(10_000)])) }, KEY);
    expect(big.payload!.summary).toHaveLength(PAGERDUTY_LIMITS.summary);
    expect(big.payload!.summary).toMatch(/^line break x+…$/);
    const body = eventBody(big);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(PAGERDUTY_LIMITS.eventBytes);
    expect(JSON.parse(body).payload.custom_details.note).toBe('300 details not shown: the event would pass 512 KB');
  });

  it('classifies: 202 accepted, 429 and 5xx retried, 400 permanent with PagerDuty\'s message, key scrubbed', () => {
    const key = new Secret(KEY);
    const answer = (status: number, body: unknown) => ({ status, headers: new Headers(), text: typeof body === 'string' ? body : JSON.stringify(body) });
    expect(classify('p', answer(202, { status: 'success', message: 'Event processed', dedup_key: 'k' }), key)).toBeUndefined();
    expect(classify('p', answer(429, ''), key)).toMatchObject({ retryable: true, reason: 'http_429' });
    expect(classify('p', answer(500, ''), key)).toMatchObject({ retryable: true, reason: 'http_500' });
    expect(classify('p', answer(400, { status: 'invalid event', message: 'Event object is invalid', errors: [`Length of 'routing_key' is incorrect (${KEY})`] }), key)).toMatchObject({
      retryable: false,
      message: "p: HTTP 400: Event object is invalid: Length of 'routing_key' is incorrect (<secret>)",
    });
    // Quoted where the cut falls: no part of the key is left either.
    expect(classify('p', answer(400, { status: 'invalid event', message: 'Event object is invalid', errors: [`${'x'.repeat(150)} ${KEY}`] }), key)?.message).not.toMatch(/R0UT1NG/);
  });
});

describe('PagerDuty events: what the incident is keyed and titled by', () => {
  it('a state alert stored before condition keys: rule, kind, subject and its labels but severity, sorted', () => {
    const { conditionKey: _, ...legacy } = firing;
    expect(dedupKey(legacy)).toBe('avawatch/ending/validation-end/NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg/node=NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg,rule=ending,threshold=3d');
    // An escalation changes the severity, not the incident.
    expect(dedupKey({ ...legacy, labels: { ...legacy.labels, severity: 'warning' } })).toBe(dedupKey(legacy));
  });

  it('`notify-test` (no alert id): a new incident each time, keyed by its subject and time', () => {
    expect(dedupKey({ ...firing, status: 'event', alertId: 0 })).toBe('avawatch/ending/event/NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg/2026-01-01T00:00:05.000Z');
  });

  it('a key of exactly 255 characters is kept as it is; 256 is hashed', () => {
    const prefix = 'avawatch/ending/validation-end/';
    expect(dedupKey({ ...firing, conditionKey: 'k'.repeat(255 - prefix.length) })).toBe(`${prefix}${'k'.repeat(255 - prefix.length)}`);
    expect(dedupKey({ ...firing, conditionKey: 'k'.repeat(256 - prefix.length) })).toMatch(/^avawatch\/[0-9a-f]{64}$/);
  });

  it('an event is of class event; an empty summary reads as the rule, an empty subject as avawatch', () => {
    const event = pagerDutyEvent({ ...firing, status: 'event', summary: ' \r\n', subject: '' }, KEY);
    expect(event.event_action).toBe('trigger');
    expect(event.payload).toMatchObject({ class: 'event', summary: 'ending', source: 'avawatch' });
  });

  it('the source is on one line within 255; a detail name is cut at 200, its value at 4,000, never in a surrogate pair', () => {
    const name = 'n'.repeat(300);
    const e = pagerDutyEvent({ ...firing, subject: `a\nb${'s'.repeat(400)}`, details: { [name]: `${'v'.repeat(3998)}😀tail`, short: 'x'.repeat(4000) } }, KEY);
    expect(e.payload!.source).toBe(`a b${'s'.repeat(251)}…`);
    expect(e.payload!.source).toHaveLength(255);
    expect(e.payload!.custom_details[name.slice(0, 200)]).toBe(`${'v'.repeat(3998)}…`);
    expect(e.payload!.custom_details['short']).toBe('x'.repeat(4000));
    expect(e.payload!.custom_details['subject']).toBe(`a\nb${'s'.repeat(400)}`);
  });

  it('an event within 512 KB is sent as it is; a resolve, which has no details, too', () => {
    const small = pagerDutyEvent(firing, KEY);
    expect(eventBody(small)).toBe(JSON.stringify(small));
    const resolve = pagerDutyEvent({ ...firing, status: 'resolved' }, KEY);
    expect(eventBody(resolve)).toBe(JSON.stringify(resolve));
  });
});

describe('PagerDuty notifier: one request per alert, one attempt per group', () => {
  let server: Server;
  let got: Array<{ dedup_key: string; event_action: string }>;
  let answers: number[];

  beforeEach(async () => {
    got = [];
    answers = [];
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const status = answers.shift() ?? 202;
        if (status === 202) got.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(status === 202 ? { status: 'success', message: 'Event processed' } : { status: 'throttle event', message: 'Requests for this service are arriving too quickly.  Please retry later.' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const receiver = (): PagerDutyReceiver => ({ name: 'pd', type: 'pagerduty', routingKey: new Secret(KEY), apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, timeout: 2_000, minInterval: 0 });
  const signal = new AbortController().signal;
  const alerts = ['a', 'b', 'c'].map((k, i) => ({ ...firing, alertId: i + 1, conditionKey: k }));

  it('a failure part-way fails the group; the retry sends only what was not accepted', async () => {
    const n = pagerdutyChannel.create(receiver());
    answers = [202, 429];
    await expect(n.send(alerts, signal)).rejects.toMatchObject({ retryable: true, reason: 'http_429', message: expect.stringMatching(/^pagerduty receiver "pd" \(event 2 of 3\): HTTP 429: Requests for this service/) });
    await n.send(alerts, signal);
    expect(got.map((e) => e.dedup_key)).toEqual(['a', 'b', 'c'].map((k) => `avawatch/ending/validation-end/${k}`));
  });

  it('sends only the last event of an incident in a group: a trigger resolved before it went out pages no one', async () => {
    await pagerdutyChannel.create(receiver()).send([alerts[0]!, { ...alerts[0]!, alertId: 5, status: 'resolved' }, alerts[1]!], signal);
    expect(got.map((e) => [e.event_action, e.dedup_key.slice(-1)])).toEqual([
      ['resolve', 'a'],
      ['trigger', 'b'],
    ]);
  });
});
