import { NAMES, NAMESPACES, OPEN } from './avalanchego-names.js';

const PREFIX = 'avalanche_';
const NAMED = new Set(NAMES);
/** A VM without a name registers under its ID (cb58). */
const VM_ID = /^avalanche_[1-9A-HJ-NP-Za-km-z]{40,}_/;

/**
 * Why no known AvalancheGo version (1.14, 1.15) exports `metric` at a node's /ext/metrics, or
 * undefined when one does (or when every target is another exporter's `…/metrics`, whose names
 * avawatch cannot know). For `avawatch check`: such a rule matches nothing, and says so only
 * once it has read the node three times.
 */
export function unknownMetric(metric: string, urls: Readonly<Record<string, string>>): string | undefined {
  if (!Object.values(urls).some(isNodeApi)) return undefined;
  if (!metric.startsWith(PREFIX)) return `${metric} is not a name AvalancheGo exports (its names start with ${PREFIX})`;
  if (VM_ID.test(metric) || OPEN.some((ns) => metric.startsWith(`${PREFIX}${ns}_`))) return undefined;
  const ns = [...NAMESPACES].sort((a, b) => b.length - a.length).find((n) => metric.startsWith(`${PREFIX}${n}_`));
  if (ns === undefined) return `${metric}: no AvalancheGo 1.14 or 1.15 registers its namespace (${PREFIX}<namespace>_: ${[...NAMESPACES, ...OPEN].join(', ')})`;
  const name = metric.slice(`${PREFIX}${ns}_`.length);
  if (NAMED.has(name) || NAMED.has(name.replace(/_(bucket|sum|count)$/, ''))) return undefined;
  const near = nearest(name);
  return `${metric}: no AvalancheGo 1.14 or 1.15 exports it${near ? ` (did you mean ${PREFIX}${ns}_${near}?)` : ''}`;
}

/** A node's API base or its /ext/metrics, not another exporter's `…/metrics`. */
function isNodeApi(url: string): boolean {
  try {
    const path = new URL(url).pathname;
    return !/\/metrics$/.test(path) || /\/ext\/metrics$/.test(path);
  } catch {
    return false;
  }
}

/** The known name nearest by edits, when it is near (a typo). */
function nearest(name: string): string | undefined {
  let best: string | undefined;
  let bestD = Math.max(2, Math.floor(name.length / 5)) + 1;
  for (const known of NAMES) {
    const d = distance(name, known, bestD);
    if (d < bestD) [best, bestD] = [known, d];
  }
  return best;
}

/** Levenshtein distance, given up at `limit`. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min((row[j] as number) + 1, (next[j - 1] as number) + 1, (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length] as number;
}
