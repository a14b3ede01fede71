import { formatElapsed } from '../base/duration.js';
import { html, type SafeHtml } from './escape.js';

// Helpers every section of the page shares: times, numbers, tables, caps.

/** Rows a table shows at most: at 10,000 watched nodes the page stays small enough to reload every few seconds. */
export const MAX_ROWS = 200;

/** The first MAX_ROWS items, and a line saying how many more there are and where to see them. */
export function capped<T>(items: readonly T[], where: string): { shown: readonly T[]; more: SafeHtml | undefined } {
  if (items.length <= MAX_ROWS) return { shown: items, more: undefined };
  return { shown: items.slice(0, MAX_ROWS), more: html`<p class="muted">and ${count(items.length - MAX_ROWS)} more, not shown (${where}).</p>` };
}

export function table(caption: string, headers: readonly string[], rows: readonly SafeHtml[], numeric: readonly number[] = []): SafeHtml {
  return html`<table>
<caption>${caption}</caption>
<thead><tr>${headers.map((h, i) => (numeric.includes(i) ? html`<th class="num">${h}</th>` : html`<th>${h}</th>`))}</tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
}

/** A moment as UTC text and how far from now it is: "2026-03-02 12:00 UTC (5m ago)". */
export function since(unixS: number, nowS: number): SafeHtml {
  if (!validTime(unixS)) return when(unixS);
  return html`${when(unixS)} <span class="muted">(${relativeText(unixS, nowS)})</span>`;
}

/** "5m ago", "in 2d", "now". */
function relativeText(unixS: number, nowS: number): string {
  const diff = (unixS - nowS) * 1000;
  return Math.abs(diff) < 1000 ? 'now' : diff < 0 ? `${formatElapsed(-diff)} ago` : `in ${formatElapsed(diff)}`;
}

/** A moment in short, for a tile: "1h ago", the UTC time as its title. */
export function ago(unixS: number, nowS: number): SafeHtml {
  if (!validTime(unixS)) return when(unixS);
  const iso = new Date(unixS * 1000).toISOString();
  return html`<time datetime="${iso}" title="${whenText(unixS)}">${relativeText(unixS, nowS)}</time>`;
}

/**
 * A moment as UTC text. Times come from the service (a validation's end): one the contract
 * allows but a Date cannot hold (1e13, 1e308 seconds) is shown as the number it is.
 */
export function when(unixS: number): SafeHtml {
  if (!validTime(unixS)) return html`${String(unixS)} <span class="muted">(not a valid time)</span>`;
  const iso = new Date(unixS * 1000).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

/** A moment as plain text (for an aria-label or a chart's title). */
export function whenText(unixS: number): string {
  if (!validTime(unixS)) return `${unixS} (not a valid time)`;
  return `${new Date(unixS * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function validTime(unixS: number): boolean {
  return !Number.isNaN(new Date(unixS * 1000).getTime());
}

export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function round(n: number, digits: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits });
}
