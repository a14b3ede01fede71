// The path an endpoint rule reads: a template of the service's (`/v1/chains/{chainId}/…`)
// filled from `params`, or a literal path. Only a path on the configured hosts: never a URL,
// a query or a segment that URL parsing would fold into another path.

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const PATH_CHARS = /^[A-Za-z0-9_\-.~:%{}/]+$/;

/** Why this is not a path of the service; undefined when it is one. */
export function pathError(path: string): string | undefined {
  if (!/^\/v[12]\//.test(path)) return 'expected a path of the service starting with /v1/ or /v2/ (no host: the API URLs are set under api)';
  if (!PATH_CHARS.test(path)) return 'a path has only letters, digits, - _ . ~ : % and {placeholders}: put query parameters under query';
  if (path.includes('//')) return 'an empty path segment (//)';
  for (const segment of path.split('/')) {
    let decoded = segment;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return `"${segment}" is not a valid percent-encoded segment`;
    }
    if (decoded === '.' || decoded === '..') return 'a "." or ".." segment: it would lead to another path';
  }
  const unplaced = path.replace(PLACEHOLDER, '');
  if (/[{}]/.test(unplaced)) return 'a placeholder is {name}: letters, digits and _';
  return undefined;
}

export function placeholders(path: string): string[] {
  return [...path.matchAll(PLACEHOLDER)].map((m) => m[1] as string);
}

/** Why a parameter value cannot fill a placeholder. */
export function paramError(value: string): string | undefined {
  if (value === '') return 'an empty value';
  if (value === '.' || value === '..') return 'a "." or ".." value would lead to another path';
  return undefined;
}

/** The concrete path: each placeholder replaced by its parameter, percent-encoded. */
export function fillPath(path: string, params: Readonly<Record<string, string>>): string {
  return path.replace(PLACEHOLDER, (_m, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** The Metrics API serves /v2/ and the legacy /v1/avg_tps/; every other path is the Data API's. */
export function apiOf(path: string): 'data' | 'metrics' {
  return path.startsWith('/v2/') || path.startsWith('/v1/avg_tps/') ? 'metrics' : 'data';
}
