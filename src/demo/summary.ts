import type { PrintedAlert } from './slack-printer.js';

interface Tally {
  firing: number;
  resolved: number;
  event: number;
}

/**
 * The demo's closing table: per rule kind, the firing, resolved and event notifications the
 * Slack receiver printed, then the kinds that printed nothing (and `whySilent`, if any did).
 * Kinds not in `kinds` (such as rule-failing) get a row of their own after them.
 */
export function summaryLines(kinds: readonly string[], alerts: readonly PrintedAlert[], whySilent = ''): string[] {
  const tallies = new Map<string, Tally>(kinds.map((k) => [k, { firing: 0, resolved: 0, event: 0 }]));
  for (const a of alerts) {
    const tally = tallies.get(a.kind) ?? { firing: 0, resolved: 0, event: 0 };
    tally[a.status]++;
    tallies.set(a.kind, tally);
  }
  const width = Math.max(...[...tallies.keys()].map((k) => k.length), 4);
  const row = (kind: string, ...cells: Array<string | number>) => `  ${kind.padEnd(width)}  ${cells.map((c, i) => String(c).padStart(['firing', 'resolved', 'events'][i]?.length ?? 0)).join('  ')}`;
  const lines = ['What the Slack receiver printed, per rule kind:', row('kind', 'firing', 'resolved', 'events')];
  for (const [kind, t] of tallies) lines.push(row(kind, t.firing, t.resolved, t.event));
  const silent = kinds.filter((k) => {
    const t = tallies.get(k);
    return !t || t.firing + t.resolved + t.event === 0;
  });
  lines.push(silent.length === 0 ? `Every one of the ${kinds.length} kinds fired.` : `Did not fire (${silent.length} of ${kinds.length}): ${silent.join(', ')}${whySilent ? ` (${whySilent})` : ''}.`);
  return lines;
}
