import { html, type SafeHtml } from './escape.js';
import { round, whenText } from './format.js';
import type { Band, Chart } from './validators.js';

// A small line chart drawn on the server: an inline SVG (no script), its figures also in
// words (title, aria-label and a caption), thresholds dashed and labelled, so it reads
// without colour and without sight. Behind the line, the network's p10–p90 band and median.

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

/** The band's moments within the line's span, at most MAX_POINTS of them (evenly picked, the latest kept). */
function bandWithin(band: Band | undefined, from: number, to: number): Band['points'] {
  const pts = (band?.points ?? []).filter((p) => p.at >= from && p.at <= to && [p.p10, p.p50, p.p90].every(Number.isFinite));
  if (pts.length <= MAX_POINTS) return pts;
  const step = pts.length / MAX_POINTS;
  const out = Array.from({ length: MAX_POINTS }, (_, i) => pts[Math.floor(i * step)] as Band['points'][number]);
  const last = pts[pts.length - 1];
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
  const noBand = chart.baseline === undefined ? '' : ` (${chart.baseline})`;
  if (!first || !last) return html`<p class="chart-empty muted">${what}: no history yet${lines ? ` (${lines})` : ''}${noBand}.</p>`;
  const band = bandWithin(chart.band, first.at, last.at);
  const values = [...pts.map((p) => p.value), ...chart.thresholds.map((t) => t.value), ...band.flatMap((b) => [b.p10, b.p90])];
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  const pad = hi === lo ? Math.max(1, Math.abs(hi) * 0.01) : (hi - lo) * 0.08;
  lo -= pad;
  hi = cap !== undefined ? Math.min(cap, hi + pad) : hi + pad;
  if (hi <= lo) hi = lo + 1;
  const span = last.at - first.at;
  const x = (at: number) => (span > 0 ? PAD + ((at - first.at) / span) * (W - 2 * PAD) : W - PAD);
  const y = (v: number) => PAD + (1 - (v - lo) / (hi - lo)) * (H - 2 * PAD);
  const xy = (at: number, v: number) => `${x(at).toFixed(1)},${y(v).toFixed(1)}`;
  const d = pts.map((p, i) => `${i === 0 ? 'M' : 'L'}${xy(p.at, p.value)}`).join(' ');
  const low = Math.min(...pts.map((p) => p.value));
  const latest = band[band.length - 1];
  // The caption says the median (short, for a phone's tile); the title and aria-label the band too.
  const network = latest === undefined ? (chart.baseline ?? (chart.band ? 'no network baseline in this window' : '')) : `network median ${fmt(latest.p50)}`;
  const spread = latest === undefined ? '' : `, p10–p90 ${fmt(latest.p10)}–${fmt(latest.p90)}`;
  const summary = `${what} from ${whenText(first.at)} to ${whenText(last.at)}: latest ${fmt(last.value)}, lowest ${fmt(low)}${lines ? `; lines: ${lines}` : ''}${network ? `; ${network}${spread}` : ''}`;
  const thresholds = chart.thresholds.map(
    (t) => html`<line class="thr" x1="0" x2="${W}" y1="${y(t.value).toFixed(1)}" y2="${y(t.value).toFixed(1)}"></line><text class="thr-label" x="${PAD}" y="${(y(t.value) - 2).toFixed(1)}">${t.label}</text>`,
  );
  // The p10–p90 area (p90 left to right, p10 back) and the median dashed, under the validator's own line.
  const area = band.length === 0 ? undefined : html`<polygon class="band" points="${[...band.map((b) => xy(b.at, b.p90)), ...[...band].reverse().map((b) => xy(b.at, b.p10))].join(' ')}"></polygon><path class="median" d="${band.map((b, i) => `${i === 0 ? 'M' : 'L'}${xy(b.at, b.p50)}`).join(' ')}"></path>`;
  return html`<figure class="chart">
<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${summary}"><title>${summary}</title>${area}${thresholds}<path class="line" d="${d}"></path><circle class="last" cx="${x(last.at).toFixed(1)}" cy="${y(last.value).toFixed(1)}" r="2.5"></circle></svg>
<figcaption class="muted">${what} since ${whenText(first.at)}: latest <strong>${fmt(last.value)}</strong>, lowest ${fmt(low)}${pts.length < chart.points.length ? ` (${chart.points.length} samples, ${pts.length} drawn)` : ''}${network ? html`<span class="network-note">; ${network}</span>` : undefined}</figcaption>
</figure>`;
}
