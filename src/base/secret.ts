import { createHmac } from 'node:crypto';
import { inspect } from 'node:util';

const REDACTED = '<secret>';

/**
 * A credential (API key, webhook URL, SMTP password). It prints as <secret> in every form
 * (String(), JSON, util.inspect, template literals), so it cannot leak through a log line;
 * only reveal() gives the value, and only the code that sends it calls that.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  /**
   * A name for the secret that does not give it away: the first 128 bits of an HMAC-SHA256
   * of it keyed by `purpose` (hex). The same secret and purpose give the same name on every
   * host (instances sharing state find each other's rows by it); a name cannot be turned back
   * into the secret, nor matched against another purpose's.
   */
  digest(purpose: string): string {
    return createHmac('sha256', purpose).update(this.#value).digest('hex').slice(0, 32);
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

/**
 * Replaces every occurrence of a secret, or of any distinctive part of it, in text with
 * <secret>. A token (API key, password) is replaced whole. A URL is replaced whole, and so
 * are its path and query and each path segment, query value and password in it that could
 * identify it (see `distinctive`), because a server may quote the path without the host
 * (`Cannot POST /services/T0…/B0…/…`). Each piece is also matched URL-encoded, JSON-escaped
 * and HTML-escaped. Longer pieces are replaced first, in one pass.
 */
export function scrub(text: string, secrets: readonly Secret[]): string {
  const pattern = patternOf(secrets);
  return pattern === null ? text : text.replace(pattern, REDACTED);
}

// Built once per list of secrets (again if the list grew): every alert and state is
// scrubbed, and compiling the pattern costs more than matching it.
const patternCache = new WeakMap<readonly Secret[], { size: number; pattern: RegExp | null }>();

function patternOf(secrets: readonly Secret[]): RegExp | null {
  const cached = patternCache.get(secrets);
  if (cached?.size === secrets.length) return cached.pattern;
  const forms = new Set<string>();
  for (const secret of secrets) for (const form of formsOf(secret)) forms.add(form);
  const pattern = forms.size === 0 ? null : new RegExp([...forms].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|'), 'g');
  patternCache.set(secrets, { size: secrets.length, pattern });
  return pattern;
}

// Path segments and query values that are only words say nothing about the secret, and
// scrubbing them would blank the same word everywhere in the log ("hooks", "alerts", "avawatch").
const COMMON_WORDS = new Set([
  'api', 'v1', 'v2', 'v3', 'hooks', 'hook', 'webhook', 'webhooks', 'services', 'service', 'incoming', 'alerts', 'alert',
  'alertmanager', 'avawatch', 'notify', 'notifications', 'notification', 'receiver', 'receivers', 'events', 'messages',
  'integrations', 'default', 'prometheus', 'generic', 'json', 'true', 'false',
]);

/**
 * A part worth scrubbing on its own: at least 8 characters, not a common word, and not
 * only a plain word or words (letters in one case, joined by - or _) shorter than 24:
 * a token has digits, mixed case or other characters, or is long.
 */
export function distinctive(part: string): boolean {
  if (part.length < 8 || COMMON_WORDS.has(part.toLowerCase())) return false;
  const wordish = /^([a-z]+|[A-Z][a-z]+|[A-Z]+)([-_.]([a-z]+|[A-Z][a-z]+|[A-Z]+))*$/.test(part);
  return !(wordish && part.length < 24);
}

const formsCache = new WeakMap<Secret, readonly string[]>();

/** Everything to look for in text for one secret: its pieces, each as written and encoded. */
function formsOf(secret: Secret): readonly string[] {
  const cached = formsCache.get(secret);
  if (cached) return cached;
  const value = secret.reveal();
  const pieces = value.length < 4 ? [] : [value, ...urlParts(value)];
  const forms = new Set<string>();
  for (const piece of pieces) {
    for (const form of [piece, safeDecode(piece), encodeURIComponent(piece), encodeURI(piece), JSON.stringify(piece).slice(1, -1), escapeHtml(piece)]) {
      if (form.length >= 4) forms.add(form);
    }
  }
  const out = [...forms];
  formsCache.set(secret, out);
  return out;
}

/** The parts of a URL that can identify it without its host: path and query, segments, values, password. */
function urlParts(value: string): string[] {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [];
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return [];
  const parts: string[] = [];
  const segments = url.pathname.split('/').filter((s) => s !== '');
  const values = [...url.searchParams.entries()].flatMap(([k, v]) => [k, v]);
  const pieces = [...segments, ...segments.map(safeDecode), ...values, url.hash.slice(1)].filter(distinctive);
  if (url.password) pieces.push(url.password, safeDecode(url.password));
  if (url.username && distinctive(url.username)) pieces.push(url.username);
  // The path (with its query) only when something in it is distinctive: "/alerts" is not a secret.
  if (pieces.length > 0) {
    const path = `${url.pathname}${url.search}`;
    parts.push(`${path}${url.hash}`, path, url.pathname);
    if (url.search.length > 1) parts.push(url.search, url.search.slice(1));
  }
  parts.push(...pieces.filter((p) => p.length >= 4));
  return parts.filter((p) => p.length >= 4 && p !== '/');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
