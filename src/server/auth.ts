import { createHash, timingSafeEqual } from 'node:crypto';
import type { ServerAuthConfig } from '../config/schema.js';

export interface Authorizer {
  /** Whether the request's Authorization header carries the configured credentials. */
  allows(header: string | undefined): boolean;
  /** WWW-Authenticate of a 401: one challenge per scheme the config accepts. */
  challenges: string[];
}

const REALM = 'avawatch';

/**
 * Checks `Authorization: Bearer <token>` and `Authorization: Basic <base64 user:password>`.
 * Both sides are hashed before the comparison, so it takes the same time whatever the
 * length or the first wrong byte of what was sent.
 */
export function authorizer(auth: ServerAuthConfig): Authorizer {
  const token = auth.token ? digest(auth.token.reveal()) : undefined;
  const basic = auth.username !== undefined && auth.password ? digest(`${auth.username}:${auth.password.reveal()}`) : undefined;
  const challenges = [...(token ? [`Bearer realm="${REALM}"`] : []), ...(basic ? [`Basic realm="${REALM}", charset="UTF-8"`] : [])];
  return {
    challenges,
    allows(header) {
      const parsed = header === undefined ? undefined : /^\s*(\S+)\s+(\S+)\s*$/.exec(header);
      if (!parsed) return false;
      const scheme = (parsed[1] as string).toLowerCase();
      const credentials = parsed[2] as string;
      if (scheme === 'bearer' && token) return sameDigest(digest(credentials), token);
      if (scheme === 'basic' && basic) return sameDigest(digest(Buffer.from(credentials, 'base64').toString('utf8')), basic);
      return false;
    },
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function sameDigest(a: Buffer, b: Buffer): boolean {
  return timingSafeEqual(a, b);
}
