import { Secret } from '../base/secret.js';
import type { Channel, ReceiverBase } from './types.js';

// A receiver copied from an example and never filled in can send nothing: say so at `check`
// rather than at the first alert. The value itself is a secret: only the placeholder's kind is named.

/** Signs in a URL: no real webhook has them. */
const IN_URL: ReadonlyArray<[RegExp, string]> = [
  [/…|\.\.\./, 'an ellipsis'],
  [/[<>]|%3C|%3E/i, 'a <placeholder>'],
  [/your[-_]/i, '"your-…"'],
  // Slack's example webhook: https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX
  [/\/X{3,}(\/|\?|$)/i, 'a part that is all X'],
];

/** Signs in a token or a signing secret, which may hold any character: only the whole value. */
const IN_TOKEN: ReadonlyArray<[RegExp, string]> = [
  [/…/, 'an ellipsis'],
  [/^<.*>$/, 'a <placeholder>'],
  [/^your[-_]/i, '"your-…"'],
  [/^X{3,}$/i, 'XXX'],
];

/** Why a receiver's secret looks like a placeholder (never what it is), or undefined. */
export function placeholderReason(c: Pick<Channel<ReceiverBase>, 'secretFields'>, r: ReceiverBase): string | undefined {
  for (const f of c.secretFields) {
    let at: unknown = r;
    for (const p of f.path) at = (at as Record<string, unknown> | undefined)?.[p];
    const value = (at as Record<string, unknown> | undefined)?.[f.key];
    if (!(value instanceof Secret)) continue;
    const why = signOf(value.reveal(), f.url);
    if (why) return `${f.key} looks like a placeholder (${why}): set the real one`;
  }
  return undefined;
}

function signOf(text: string, url: boolean): string | undefined {
  if (!url) return IN_TOKEN.find(([re]) => re.test(text))?.[1];
  try {
    // RFC 2606: example.com, .org and .net name no one's server.
    if (/(^|\.)example\.(com|org|net)$/i.test(new URL(text).hostname)) return 'an example.com address';
  } catch {
    // not a URL: the schema says so
  }
  return IN_URL.find(([re]) => re.test(text))?.[1];
}
