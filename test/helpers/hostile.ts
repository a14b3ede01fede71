import { expect } from 'vitest';
import { postText, type SlackPost } from './slack-receiver.js';
import type { SmtpSink } from './smtp.js';

// Chain text anyone can write (token names and symbols), and what must hold of it once it
// went through the daemon into Slack and email: no mention, no link, no markup, no header.

/** A Slack broadcast, a Slack link, HTML that runs script, and CR/LF that would start a mail header. */
export const HOSTILE = ['<!channel>', '<http://evil|x>', '<img src=x onerror=alert(1)>', '<script>alert(1)</script>', 'a\r\nBcc: victim@example.com'] as const;

/** Nothing raw reaches Slack: every `<` of chain text arrives as `&lt;`; the notification text has no control sequence at all. */
export function expectSlackInert(posts: readonly SlackPost[]): string {
  const text = posts.map(postText).join('\n');
  for (const raw of ['<!channel>', '<http://evil|x>', '<http://evil', '<script>', '<img']) expect(text).not.toContain(raw);
  for (const post of posts) expect(post.body.text).not.toMatch(/<(?!!date\^)/);
  return text;
}

/** The HTML part shows markup as text; CR/LF never makes a header, and each mail goes to its one recipient. */
export function expectEmailInert(smtp: SmtpSink, to = 'ops@example.com'): string {
  const html = smtp.messages.map((m) => String(m.html)).join('\n');
  for (const raw of ['<script>', '<img', '<http://evil']) expect(html).not.toContain(raw);
  for (const [i, mail] of smtp.messages.entries()) {
    expect(mail.bcc, `mail ${i}`).toBeUndefined();
    expect(mail.subject ?? '', `mail ${i}`).not.toMatch(/[\r\n]/);
    expect(mail.headers.has('bcc'), `mail ${i}`).toBe(false);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : '').toBe(to);
    // As sent over the wire, unfolded: the hostile text may sit inside the Subject, never on a line of its own.
    const headers = smtp.raw[i]!.split('\r\n\r\n')[0]!.replace(/\r\n[ \t]+/g, ' ').split('\r\n');
    expect(headers.filter((h) => /^bcc:/i.test(h))).toEqual([]);
    expect(headers.filter((h) => h.includes('victim@example.com') && !h.startsWith('Subject: '))).toEqual([]);
  }
  return html;
}
