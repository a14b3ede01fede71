import { z } from 'zod';
import { avaxToNavax } from './amount.js';
import { parseDuration } from './duration.js';
import { Secret } from './secret.js';

/** `30s`, `5m`, `1h30m`, `14d` → milliseconds. */
export const durationMs = z.string().transform((text, ctx) => {
  const ms = parseDuration(text);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: `"${text}" is not a duration: write e.g. 30s, 5m, 1h, 14d` });
    return z.NEVER;
  }
  return ms;
});

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

export const httpUrl = z.string().refine(isHttpUrl, 'expected an http:// or https:// URL');

/**
 * A URL that is a credential (a Slack webhook). Empty means unset; the value is never
 * echoed in an error message.
 */
export const secretUrl = z
  .string()
  .refine((v) => v === '' || isHttpUrl(v), 'expected an http:// or https:// URL (value not shown: it is a secret)')
  .transform((v) => (v === '' ? undefined : new Secret(v)));

/**
 * A PostgreSQL connection URL (`postgres://user:password@host:5432/db`): a credential, never
 * echoed in an error message.
 */
export const secretPostgresUrl = z
  .string()
  .refine((v) => /^postgres(ql)?:\/\/\S+$/.test(v), 'expected a postgres:// or postgresql:// URL (value not shown: it may hold a password)')
  .transform((v) => new Secret(v));

/** AVAX as written ("1.5", 25) → exact nAVAX. */
export const avaxAmount = z.union([z.string(), z.number()]).transform((v, ctx) => {
  try {
    return avaxToNavax(v);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
});

/** Keys whose values are credentials: never echoed in an error. The channels add their own (config/schema.ts). */
export const SECRET_KEYS: ReadonlySet<string> = new Set(['apiKey', 'password', 'secret', 'token', 'url']);

export const secretString = z.string().transform((v) => (v === '' ? undefined : new Secret(v)));

/** A port, also as a string of digits (what `${SMTP_PORT}` becomes). */
export const port = z.union([z.number(), z.string().regex(/^\d+$/, 'expected a port number').transform(Number)]).pipe(
  z.number().int().min(1, 'expected a port from 1 to 65535').max(65_535, 'expected a port from 1 to 65535'),
);

export const labelName = z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'expected a label name: letters, digits and _');
export const labels = z.record(labelName, z.string());

/** Rule and receiver names: used as label values and in CLI arguments. */
export const name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, 'expected letters, digits, _ . : - (no spaces)');
