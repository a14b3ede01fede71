import { formatElapsed } from '../base/duration.js';
import { renderChart } from './chart.js';
import { html, type SafeHtml } from './escape.js';
import { ago, capped, count, round, since } from './format.js';
import { nodeLink, type Explorers } from './links.js';
import { standingOf, type L1ValidatorRow, type NodeView, type ValidatorRow, type Verdict } from './validators.js';

// The top of the page: a tile per validator, its verdict first, its figures in words, its chart.

/** A badge's colour by the worst firing severity: a warning is not a critical, info is no trouble (unknown: the worst). */
const FIRING_CLASS: Record<string, string> = { critical: 'bad', warning: 'warning', info: 'good' };

/** The verdict in words (colour only repeats it): N firing, blind, not listed, not validating, not watched, OK. */
function verdict(v: Verdict): SafeHtml {
  const parts: SafeHtml[] = [];
  if (v.firing > 0) parts.push(html`<span class="verdict ${FIRING_CLASS[v.worst ?? ''] ?? 'bad'}">${count(v.firing)} firing</span>`);
  if (v.blind !== undefined) parts.push(html`<span class="verdict warning">blind</span>`);
  // The service lists no validation of it: its badge says so, as its status does, never "OK".
  if (parts.length === 0 && v.unlisted) parts.push(html`<span class="verdict bad">not listed</span>`);
  // Its validation is over (completed or removed): no longer validating is not "OK" either.
  if (parts.length === 0 && v.ended) parts.push(html`<span class="verdict bad">not validating</span>`);
  if (parts.length === 0) parts.push(v.watched ? html`<span class="verdict good">OK</span>` : html`<span class="verdict muted">not watched</span>`);
  return html`${parts}`;
}

/** What the node's own API says: its version, peers, chains bootstrapped, failing checks, and while it is silent the verdict with the network's view. */
function nodeFacts(n: NodeView | undefined, nowS: number): SafeHtml | undefined {
  if (n === undefined) return undefined;
  const chains = Object.entries(n.bootstrapped);
  const behind = chains.filter(([, ok]) => !ok).map(([c]) => c);
  const boot =
    chains.length === 0
      ? undefined
      : behind.length === 0
        ? html`bootstrapped ${chains.map(([c]) => c).join(', ')}`
        : html`<strong class="bad">not bootstrapped: ${behind.join(', ')}</strong>`;
  const api = n.api.answers ? html`<span class="good">API answers</span>` : html`<strong class="${n.verdict?.tier === 'critical' ? 'bad' : 'warning'}">API silent</strong> since ${since(n.api.since, nowS)}`;
  const figures = [
    api,
    n.version === undefined ? undefined : html`runs <strong>${n.version}</strong>`,
    n.peers === undefined ? undefined : html`<strong>${count(n.peers)}</strong> peer${n.peers === 1 ? '' : 's'}`,
    boot,
    n.off.length === 0 ? undefined : html`<span class="warning">${n.off.map((a) => `/ext/${a}`).join(', ')} switched off</span>`,
  ].filter((p) => p !== undefined);
  const failing = n.failing.length === 0 ? undefined : html`<p class="facts node-failing"><span class="bad">failing health checks:</span> ${n.failing.map((c, i) => html`${i > 0 ? ', ' : ''}<code>${c}</code>`)}</p>`;
  const silent = n.api.answers ? undefined : html`<p class="note ${n.verdict?.tier === 'critical' ? 'bad' : 'warning'}">${n.api.error}; ${n.verdict?.text ?? 'not judged yet'}</p>`;
  const outside = n.outside === undefined || !n.api.answers ? undefined : html` · the network: ${n.outside}`;
  return html`<p class="facts node">Node: ${figures.map((p, i) => html`${i > 0 ? ' · ' : ''}${p}`)}${outside}</p>${failing}${silent}`;
}

/** The validator's newest one-shot event in the history window (a validation that ended, without a reward). */
function lastEvent(v: ValidatorRow, nowS: number): SafeHtml | undefined {
  const e = v.lastEvent;
  if (e === undefined) return undefined;
  return html`<p class="note last-event"><span class="sev ${e.severity}">${e.severity}</span> ${e.summary} <span class="muted">(${ago(e.at, nowS)})</span></p>`;
}

/** The first run: no validator yet, and how to add one. */
function noValidators(): SafeHtml {
  return html`<section id="validators">
<h2>Validators (0)</h2>
<p class="warning">No validators yet: the validator rules watch nothing until the inventory lists one.</p>
<p class="note">Add yours under <code>validators:</code> in the config (avawatch reloads it when the file changes, or on SIGHUP):</p>
<pre class="note"><code>validators:
  - name: validator-1
    nodeId: NodeID-…
    network: mainnet                 # mainnet | fuji
    api: http://127.0.0.1:9650       # optional: its own API, watched from inside</code></pre>
<p class="note">Or write a config with them filled in: <code>avawatch init --node NodeID-… --network mainnet --api http://127.0.0.1:9650</code>, and check it with <code>avawatch check</code>.</p>
</section>`;
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

export function validatorsSection(rows: readonly ValidatorRow[], explorers: Explorers, nowS: number, none = false): SafeHtml {
  if (rows.length === 0) return none ? noValidators() : html``;
  const { shown, more } = capped(rows, '/metrics has every one');
  const tiles = shown.map(
    (v) => html`<li class="tile">
<p class="tile-head">${verdict(v.verdict)} ${v.name === undefined ? nodeLink(explorers, v.network, v.nodeId) : html`<strong class="name">${v.name}</strong>`}</p>
${v.name === undefined ? undefined : html`<p class="facts">${nodeLink(explorers, v.network, v.nodeId)}</p>`}
<p class="facts">${status(v.status)} · uptime <strong>${v.uptimePercent === undefined ? '—' : `${round(v.uptimePercent, 2)}%`}</strong> · ends ${v.end === undefined ? '—' : since(v.end, nowS)} · ${v.version ?? 'version not known'} · ${v.network}</p>
${nodeFacts(v.node, nowS)}${lastEvent(v, nowS)}${standing(v, nowS)}${labels(v.labels)}${blind(v.verdict)}
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
