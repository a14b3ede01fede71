import { nearest } from '../../base/nearest.js';
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
  if (VM_ID.test(metric)) return undefined;
  // The longest namespace first: SAE's under the EVM's (evm_transition_sae) are known names, the EVM's own are open.
  const ns = [...NAMESPACES].sort((a, b) => b.length - a.length).find((n) => metric.startsWith(`${PREFIX}${n}_`));
  if (ns === undefined && OPEN.some((n) => metric.startsWith(`${PREFIX}${n}_`))) return undefined;
  if (ns === undefined) return `${metric}: no AvalancheGo 1.14 or 1.15 registers its namespace (${PREFIX}<namespace>_: ${[...NAMESPACES, ...OPEN].join(', ')})`;
  const name = metric.slice(`${PREFIX}${ns}_`.length);
  if (NAMED.has(name) || NAMED.has(name.replace(/_(bucket|sum|count)$/, ''))) return undefined;
  const near = nearest(name, NAMES);
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
