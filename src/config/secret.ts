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

/** Replaces every occurrence of a secret's value (and its URL-encoded form) in text. */
export function scrub(text: string, secrets: readonly Secret[]): string {
  let out = text;
  for (const secret of secrets) {
    const value = secret.reveal();
    if (value.length < 4) continue;
    // As written, URL-encoded, and JSON-escaped (how it would sit inside a JSON log line).
    for (const form of new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)])) {
      out = out.replaceAll(form, REDACTED);
    }
  }
  return out;
}
