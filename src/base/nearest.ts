// "Did you mean …": the known word nearest a typo.

/** The candidate nearest `word` by edits, when it is near enough to be a typo of it. */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Math.max(2, Math.floor(word.length / 5)) + 1;
  for (const known of candidates) {
    const d = distance(word, known, bestD);
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
