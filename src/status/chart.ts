import { html, type SafeHtml } from './escape.js';
import { round, whenText } from './format.js';
import type { Chart } from './validators.js';

// A small line chart drawn on the server: an inline SVG (no script), its figures also in
// words (title, aria-label and a caption), thresholds dashed and labelled, so it reads
// without colour and without sight.

const W = 320;
const H = 72;
const PAD = 4;
/** Points drawn at most: each of this many buckets keeps its lowest figure (the one that matters). */
export const MAX_POINTS = 120;

export function downsample(points: Chart['points']): Chart['points'] {
  if (points.length <= MAX_POINTS) return points;
  const size = points.length / MAX_POINTS;
  const out: Chart['points'] = [];
  for (let b = 0; b < MAX_POINTS; b++) {
    const bucket = points.slice(Math.floor(b * size), Math.floor((b + 1) * size));
    const low = bucket.reduce((m, p) => (p.value < m.value ? p : m));
    out.push(low);
  }
  const last = points[points.length - 1];
  if (last && out[out.length - 1] !== last) out.push(last);
  return out;
}

/** `what`: "Uptime"; `unit`: "%" or " AVAX"; `cap`: the highest value possible (100 for a percent). */
export function renderChart(chart: Chart, what: string, unit: string, cap?: number): SafeHtml {
  const pts = downsample(chart.points.filter((p) => Number.isFinite(p.value) && Number.isFinite(p.at)));
  const fmt = (v: number) => `${round(v, unit === '%' ? 2 : 4)}${unit}`;
  const first = pts[0];
  const last = pts[pts.length - 1];
  const lines = chart.thresholds.map((t) => `${t.label}`).join(', ');
  if (!first || !last) return html`<p class="chart-empty muted">${what}: no history yet${lines ? ` (${lines})` : ''}.</p>`;
  const values = [...pts.map((p) => p.value), ...chart.thresholds.map((t) => t.value)];
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  const pad = hi === lo ? Math.max(1, Math.abs(hi) * 0.01) : (hi - lo) * 0.08;
  lo -= pad;
  hi = cap !== undefined ? Math.min(cap, hi + pad) : hi + pad;
  if (hi <= lo) hi = lo + 1;
  const span = last.at - first.at;
  const x = (at: number) => (span > 0 ? PAD + ((at - first.at) / span) * (W - 2 * PAD) : W - PAD);
  const y = (v: number) => PAD + (1 - (v - lo) / (hi - lo)) * (H - 2 * PAD);
  const d = pts.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.at).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
  const low = Math.min(...pts.map((p) => p.value));
  const summary = `${what} from ${whenText(first.at)} to ${whenText(last.at)}: latest ${fmt(last.value)}, lowest ${fmt(low)}${lines ? `; lines: ${lines}` : ''}`;
  const thresholds = chart.thresholds.map(
    (t) => html`<line class="thr" x1="0" x2="${W}" y1="${y(t.value).toFixed(1)}" y2="${y(t.value).toFixed(1)}"></line><text class="thr-label" x="${PAD}" y="${(y(t.value) - 2).toFixed(1)}">${t.label}</text>`,
  );
  return html`<figure class="chart">
<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${summary}"><title>${summary}</title>${thresholds}<path class="line" d="${d}"></path><circle class="last" cx="${x(last.at).toFixed(1)}" cy="${y(last.value).toFixed(1)}" r="2.5"></circle></svg>
<figcaption class="muted">${what} since ${whenText(first.at)}: latest <strong>${fmt(last.value)}</strong>, lowest ${fmt(low)}${pts.length < chart.points.length ? ` (${chart.points.length} samples, ${pts.length} drawn)` : ''}</figcaption>
</figure>`;
}
