import { describe, expect, it } from 'vitest';
import { distinctive, scrub, Secret } from './secret.js';

const HOOK = 'https://hooks.example.com/api/v2/services/T0A7QX2K9/B0C3MZ8LQ/SuperSecretWebhookToken7Q?key=QueryS3cretK3y99&format=json';
const secrets = [new Secret(HOOK), new Secret('APIKEY-7f3a9c-never-print')];

describe('scrub', () => {
  it('replaces a URL secret whole, by its path and query, and by each distinctive part', () => {
    expect(scrub(`posting to ${HOOK} failed`, secrets)).toBe('posting to <secret> failed');
    expect(scrub('Cannot POST /api/v2/services/T0A7QX2K9/B0C3MZ8LQ/SuperSecretWebhookToken7Q?key=QueryS3cretK3y99&format=json', secrets)).toBe('Cannot POST <secret>');
    expect(scrub('Cannot POST /api/v2/services/T0A7QX2K9/B0C3MZ8LQ/SuperSecretWebhookToken7Q', secrets)).toBe('Cannot POST <secret>');
    // A body cut short, or reformatted by a proxy: each segment and value on its own.
    expect(scrub('pre Cannot POST services T0A7QX2K9 B0C3MZ8LQ SuperSecretWebhookToken7Q key QueryS3cretK3y99', secrets)).toBe(
      'pre Cannot POST services <secret> <secret> <secret> key <secret>',
    );
    expect(scrub('…/B0C3MZ8LQ/SuperSecretWebho', secrets)).toBe('…/<secret>/SuperSecretWebho');
  });

  it('also finds the parts URL-encoded, JSON-escaped and HTML-escaped', () => {
    expect(scrub(encodeURIComponent('/api/v2/services/T0A7QX2K9/B0C3MZ8LQ/SuperSecretWebhookToken7Q'), secrets)).toBe('<secret>');
    expect(scrub('{"url":"key=QueryS3cretK3y99&amp;format=json"}', secrets)).toBe('{"url":"<secret>"}');
    expect(scrub(JSON.stringify({ error: `echo ${HOOK}` }), secrets)).toBe('{"error":"echo <secret>"}');
  });

  it('leaves the host and common words alone: scrubbing them would blank the log', () => {
    const text = 'webhook receiver "hook" at hooks.example.com: HTTP 503 from /api/v2/services (json, format, key, avawatch, notifications)';
    expect(scrub(text, secrets)).toBe(text);
    expect(scrub('avawatch running', [new Secret('https://example.com/notifications/avawatch/alertmanager')])).toBe('avawatch running');
  });

  it('replaces a token whole, and a password in a URL', () => {
    expect(scrub('HTTP 401: invalid api key APIKEY-7f3a9c-never-print', secrets)).toBe('HTTP 401: invalid api key <secret>');
    expect(scrub('auth p4ssw0rd-x failed', [new Secret('https://bot:p4ssw0rd-x@hooks.example.com/in')])).toBe('auth <secret> failed');
  });

  it('ignores secrets shorter than 4 characters and text with no secret', () => {
    expect(scrub('a ab abc', [new Secret('ab')])).toBe('a ab abc');
    expect(scrub('nothing here', secrets)).toBe('nothing here');
  });

  it('calls a part distinctive when it looks like a token, not a word', () => {
    expect(['T0A7QX2K9', 'SuperSecretWebhookToken7Q', 'XXXXsecretXXXXtokenXXXX', 'token-abc123', 'abcdefghijklmnopqrstuvwxyz'].filter(distinctive)).toHaveLength(5);
    expect(['api', 'v2', 'hooks', 'services', 'webhooks', 'incoming-webhook', 'Alertmanager', 'abc123'].filter(distinctive)).toEqual([]);
  });
});
