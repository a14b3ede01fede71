// Filters of several ids in one call (nodeIds, rewardAddresses, addresses): how many fit.

/** The most ids in one bulk validator call: the size of one page. */
export const VALIDATOR_BATCH = 100;

/**
 * Characters of one comma-separated filter (after URL encoding), so that the URL with the
 * base, the path and the other parameters stays under 8 KB, which proxies and the service accept.
 */
export const FILTER_CHARS = 7_000;

/**
 * Consecutive batches of at most `max` ids whose comma-separated, URL-encoded list stays
 * within FILTER_CHARS. The ids are sorted first, so rules that watch the same ids ask the
 * very same calls and share them.
 */
export function filterBatches(ids: readonly string[], max: number): string[][] {
  const out: string[][] = [];
  let batch: string[] = [];
  let chars = 0;
  for (const id of [...new Set(ids)].sort()) {
    const size = encodeURIComponent(id).length;
    // Each further id adds a comma, sent as %2C.
    if (batch.length > 0 && (batch.length >= max || chars + 3 + size > FILTER_CHARS)) {
      out.push(batch);
      batch = [];
    }
    chars = batch.length === 0 ? size : chars + 3 + size;
    batch.push(id);
  }
  if (batch.length > 0) out.push(batch);
  return out;
}
