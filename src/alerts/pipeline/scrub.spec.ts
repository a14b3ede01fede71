import { describe, expect, it } from 'vitest';
import { scrub, Secret } from '../../base/secret.js';
import { scrubCondition, scrubDraft, scrubResolution, scrubState } from './scrub.js';

const KEY = 'KEY-9f8e7d';
const redact = (t: string) => t.replaceAll(KEY, '<secret>');

describe('scrubbing an alert as it is made', () => {
  it('scrubs the present a resolution states: summary, detail keys and values', () => {
    expect(scrubResolution({ summary: `answers again ${KEY}`, details: { Error: `was ${KEY}`, [KEY]: 'k' } }, redact)).toEqual({ summary: 'answers again <secret>', details: { Error: 'was <secret>', '<secret>': 'k' } });
    const clean = { summary: 'fine' };
    expect(scrubResolution(clean, redact)).toBe(clean);
  });

  it('scrubs every text of a condition: key, subject, summaries, tier, label and detail keys and values', () => {
    const c = scrubCondition(
      {
        key: `tx:${KEY}`,
        subject: `s ${KEY}`,
        summary: `HTTP 502: x-glacier-api-key: ${KEY}`,
        resolvedSummary: `ok ${KEY}`,
        labels: { [`l-${KEY}`]: `v ${KEY}` },
        details: { Error: `echo ${KEY}`, [KEY]: 'as a key' },
        tier: KEY,
      },
      redact,
    );
    expect(JSON.stringify(c)).not.toContain(KEY);
    expect(c.summary).toBe('HTTP 502: x-glacier-api-key: <secret>');
    expect(c.key).toBe('tx:<secret>');
    expect({ ...c.details }).toEqual({ Error: 'echo <secret>', '<secret>': 'as a key' });
  });

  it('scrubs a draft, and keeps a chain key such as __proto__ an ordinary key', () => {
    const d = scrubDraft({ status: 'event', subject: KEY, summary: KEY, labels: {}, details: JSON.parse(`{"__proto__": "${KEY}"}`) as Record<string, string>, conditionKey: KEY }, redact);
    expect(JSON.stringify(d)).toBe('{"status":"event","subject":"<secret>","summary":"<secret>","labels":{},"details":{"__proto__":"<secret>"},"conditionKey":"<secret>"}');
  });

  it('returns a state without the secret as it is, and scrubs the strings of one with it', () => {
    const clean = { failures: 1, error: 'HTTP 502' };
    expect(scrubState(clean, redact).state).toBe(clean);
    const { state, json } = scrubState({ failures: 2, error: `echo ${KEY}`, list: [KEY, 3] }, redact);
    expect(json).toBe('{"failures":2,"error":"echo <secret>","list":["<secret>",3]}');
    expect(state).toEqual({ failures: 2, error: 'echo <secret>', list: ['<secret>', 3] });
  });

  it('finds a secret quoted in its escaped form, which the state\'s JSON text would escape again', () => {
    const secrets = [new Secret('pa"ss-7f3a9c')];
    const real = (t: string) => scrub(t, secrets);
    const echoed = 'echo pa\\"ss-7f3a9c'; // a service's JSON-escaped echo, as text
    expect(scrubState({ error: echoed }, real).json).toBe('{"error":"echo <secret>"}');
    expect(scrubCondition({ key: 'k', subject: 's', summary: echoed, labels: {}, details: {} }, real).summary).toBe('echo <secret>');
  });
});
