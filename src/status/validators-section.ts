import { formatElapsed } from '../base/duration.js';
import { renderChart } from './chart.js';
import { html, type SafeHtml } from './escape.js';
import { capped, count, round, since } from './format.js';
import { nodeLink, type Explorers } from './links.js';
import { standingOf, type L1ValidatorRow, type ValidatorRow, type Verdict } from './validators.js';

// The top of the page: a tile per validator, its verdict first, its figures in words, its chart.

/** The verdict in words (colour only repeats it): N firing, blind, not watched, OK. */
function verdict(v: Verdict): SafeHtml {
  const parts: SafeHtml[] = [];
  if (v.firing > 0) parts.push(html`<span class="verdict bad">${count(v.firing)} firing</span>`);
  if (v.blind !== undefined) parts.push(html`<span class="verdict warning">blind</span>`);
  if (parts.length === 0) parts.push(v.watched ? html`<span class="verdict good">OK</span>` : html`<span class="verdict muted">not watched</span>`);
  return html`${parts}`;
}

const STATUS_CLASS: Record<string, string> = { active: 'good', pending: 'info', completed: 'bad', removed: 'bad', 'not listed': 'bad' };

function status(s: string | undefined): SafeHtml {
  if (s === undefined) return html`<span class="muted">status not known yet</span>`;
  return html`<span class="${STATUS_CLASS[s] ?? ''}">${s}</span>`;
}

function labels(l: Record<string, string> | undefined): SafeHtml | undefined {
  const entries = Object.entries(l ?? {});
  if (entries.length === 0) return undefined;
  return html`<p class="labels">${entries.map(([k, v], i) => html`${i > 0 ? ' ' : ''}<span class="label">${k}=${v}</span>`)}</p>`;
}

function blind(v: Verdict): SafeHtml | undefined {
  return v.blind === undefined ? undefined : html`<p class="note warning">Blind: ${v.blind}</p>`;
}

/** What the judged period can still take, its cycle, and whether a delegation still fits (status/validators.ts words them). */
function standing(v: ValidatorRow, nowS: number): SafeHtml {
  const s = standingOf(v, nowS);
  const b = s.budget;
  const needed = b?.needed ? ` (${b.needed})` : '';
  const budget = b === undefined ? undefined : b.lost ? html`<p class="facts budget"><strong class="bad">${b.text}</strong>${needed}</p>` : html`<p class="facts budget">can be down <strong>${b.text}</strong> more and still be paid${needed}</p>`;
  const parts = [s.cycle === undefined ? undefined : html`auto-renewed, cycle ends ${since(s.cycle.end, nowS)}${s.cycle.then}`, s.closed === undefined ? undefined : html`<span class="warning">closed to new delegations</span>: ${s.closed}`].filter((p) => p !== undefined);
  return html`${budget}${parts.length === 0 ? undefined : html`<p class="facts">${parts.map((p, i) => html`${i > 0 ? ' · ' : ''}${p}`)}</p>`}`;
}

export function validatorsSection(rows: readonly ValidatorRow[], explorers: Explorers, nowS: number): SafeHtml {
  if (rows.length === 0) return html``;
  const { shown, more } = capped(rows, '/metrics has every one');
  const tiles = shown.map(
    (v) => html`<li class="tile">
<p class="tile-head">${verdict(v.verdict)} ${v.name === undefined ? nodeLink(explorers, v.network, v.nodeId) : html`<strong class="name">${v.name}</strong>`}</p>
${v.name === undefined ? undefined : html`<p class="facts">${nodeLink(explorers, v.network, v.nodeId)}</p>`}
<p class="facts">${status(v.status)} · uptime <strong>${v.uptimePercent === undefined ? '—' : `${round(v.uptimePercent, 2)}%`}</strong> · ends ${v.end === undefined ? '—' : since(v.end, nowS)} · ${v.version ?? 'version not known'} · ${v.network}</p>
${standing(v, nowS)}${labels(v.labels)}${blind(v.verdict)}
${renderChart(v.chart, 'Uptime', '%', 100)}
<p class="muted note">Rules: ${v.rules.length === 0 ? 'none yet' : v.rules.join(', ')}</p>
</li>`,
  );
  return html`<section id="validators">
<h2>Validators (${count(rows.length)})</h2>
<ul class="tiles">
${tiles}
</ul>${more}
</section>`;
}

export function l1Section(rows: readonly L1ValidatorRow[], explorers: Explorers): SafeHtml {
  if (rows.length === 0) return html``;
  const { shown, more } = capped(rows, '/metrics has every one');
  const tiles = shown.map(
    (v) => html`<li class="tile">
<p class="tile-head">${verdict(v.verdict)} <strong class="name id">${v.validationId}</strong></p>
<p class="facts">Node ${nodeLink(explorers, v.network, v.nodeId)} · subnet <span class="id">${v.subnetId}</span></p>
<p class="facts">balance <strong>${v.balanceAvax.toLocaleString('en-US', { maximumFractionDigits: 9 })} AVAX</strong> · runway ${v.runwaySeconds === undefined ? html`<span class="muted">not known yet</span>` : formatElapsed(v.runwaySeconds * 1000)}</p>
${blind(v.verdict)}${renderChart(v.chart, 'Balance', ' AVAX')}
<p class="muted note">Rules: ${v.rules.join(', ')}</p>
</li>`,
  );
  return html`<section id="l1">
<h2>L1 validators (${count(rows.length)})</h2>
<p class="muted note">Shortest runway first: how long the balance lasts at the fee the validator actually burned.</p>
<ul class="tiles">
${tiles}
</ul>${more}
</section>`;
}
