import { createHash } from 'node:crypto';
import { formatElapsed } from '../config/duration.js';
import { html, SafeHtml } from './escape.js';
import type { BudgetRow, L1ValidatorRow, RuleStatus, StatusSnapshot, ValidatorRow } from './snapshot.js';

/** The page reloads itself this often (a meta refresh: no JavaScript). */
export const REFRESH_SECONDS = 10;

/** Rows a table shows at most: at 10,000 watched nodes the page stays small enough to reload every few seconds. */
export const MAX_ROWS = 200;

// Narrow screens show each table row as a card, each cell labelled by its data-label.
const CSS = `
:root{color-scheme:light dark;--sans:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;--fg:#1b1f24;--muted:#5b6570;--line:#d5dae0;--bg:#fff;--head:#f3f5f7;--crit:#b3261e;--warn:#8a5a00;--info:#1d5fb4;--ok:#1f7a3a}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--muted:#a0a8b2;--line:#39414a;--bg:#15191d;--head:#1f252b;--crit:#ff8a80;--warn:#f0c060;--info:#8ab4f8;--ok:#7fd18b}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:72rem;padding:1rem;font:15px/1.45 var(--sans);color:var(--fg);background:var(--bg)}
h1{font-size:1.4rem;margin:0 0 .25rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
p{margin:.25rem 0}.muted,caption{color:var(--muted)}caption{text-align:left;font-size:.85rem;padding:.25rem 0}
table{border-collapse:collapse;width:100%}th,td{text-align:left;vertical-align:top;padding:.35rem .5rem;border-bottom:1px solid var(--line)}
th{background:var(--head);font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
code,.id{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85em;overflow-wrap:anywhere}
.sev{display:inline-block;padding:0 .4rem;border-radius:.25rem;border:1px solid currentColor;font-size:.8rem;font-weight:600;text-transform:uppercase}
.note{font-size:.8rem;text-align:left;font-variant-numeric:normal}
.critical,.bad{color:var(--crit)}.warning{color:var(--warn)}.info{color:var(--info)}.good{color:var(--ok)}
details{margin-top:.25rem}summary{cursor:pointer;color:var(--muted);font-size:.85rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:0 .75rem;margin:.25rem 0}dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
footer{margin-top:2rem;font-size:.85rem}a{color:var(--info)}
@media (max-width:40rem){thead{display:none}table,tbody,tr,td{display:block;width:100%}tr{border:1px solid var(--line);border-radius:.4rem;margin:.5rem 0;padding:.25rem 0}td{border:0;padding:.15rem .6rem}td.num{text-align:left}td{overflow-wrap:anywhere}td[data-label]::before{content:attr(data-label) ": ";color:var(--muted);font:15px/1.45 var(--sans)}caption{display:block}}
`;

/**
 * The page's Content-Security-Policy: nothing loads but its own inline style, allowed by
 * hash (the style is a constant, so no nonce per response); no script, no form, no frame.
 */
export const STATUS_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(CSS, 'utf8').digest('base64')}'`,
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function renderStatusPage(s: StatusSnapshot): string {
  const nowS = s.now.getTime() / 1000;
  const firing = s.alerts.length;
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${REFRESH_SECONDS}">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${firing === 0 ? 'avawatch: nothing firing' : `avawatch: ${firing} firing`}</title>
<style>${new SafeHtml(CSS)}</style>
</head>
<body>
<header>
<h1>avawatch</h1>
<p>${readiness(s.ready)} · version ${s.version} · as of ${when(s.now.getTime() / 1000)} · refreshes every ${REFRESH_SECONDS} s</p>
${s.ready.ready ? undefined : html`<ul class="bad">${s.ready.problems.map((p) => html`<li>${p}</li>`)}</ul>`}
</header>
<main>
${alertsSection(s, nowS)}
${rulesSection(s.rules, nowS)}
${validatorsSection(s.validators, nowS)}
${l1Section(s.l1Validators)}
${deliverySection(s)}
</main>
<footer class="muted">Read-only. The same state as <a href="/metrics">/metrics</a> and <a href="/api/v1/alerts">/api/v1/alerts</a>; health: <a href="/readyz">/readyz</a>.</footer>
</body>
</html>
`;
  return page.text;
}

/** Ready, starting (rules not evaluated yet, and nothing else wrong) or not ready. */
function readiness(r: StatusSnapshot['ready']): SafeHtml {
  if (r.ready) return html`<span class="good">ready</span>`;
  return html`<span class="bad">${r.problems.every((p) => p.startsWith('starting:')) ? 'starting' : 'not ready'}</span>`;
}

function alertsSection(s: StatusSnapshot, nowS: number): SafeHtml {
  const { shown, more } = capped(s.alerts, '`avawatch alerts` and /api/v1/alerts list them all');
  const rows = shown.map(
    (a) => html`<tr>
<td data-label="Severity"><span class="sev ${a.severity}">${a.severity}</span></td>
<td data-label="Rule">${a.rule}</td>
<td data-label="Subject" class="id">${a.subject}</td>
<td data-label="Summary">${a.summary}${details(a.details)}</td>
<td data-label="Since">${since(Date.parse(a.startsAt) / 1000, nowS)}</td>
</tr>`,
  );
  return html`<section id="alerts">
<h2>Firing alerts (${count(s.alerts.length)})</h2>
${rows.length === 0 ? html`<p class="good">Nothing is firing.</p>` : table('Newest first.', ['Severity', 'Rule', 'Subject', 'Summary', 'Since'], rows)}${more}
</section>`;
}

function details(d: Record<string, string>): SafeHtml | undefined {
  const entries = Object.entries(d);
  if (entries.length === 0) return undefined;
  return html`<details><summary>details</summary><dl>${entries.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl></details>`;
}

function rulesSection(rules: readonly RuleStatus[], nowS: number): SafeHtml {
  const rows = rules.map(
    (r) => html`<tr>
<td data-label="Rule">${r.name}</td>
<td data-label="Kind">${r.kind}</td>
<td data-label="Interval">${r.when}</td>
<td data-label="Last success">${r.lastSuccess === undefined ? html`<span class="muted">not yet</span>` : since(r.lastSuccess, nowS)}</td>
<td data-label="Failures in a row" class="num${r.failuresInARow > 0 ? ' bad' : ''}">${r.failuresInARow}${r.lastError === undefined ? undefined : html`<details><summary>last error</summary>${r.lastError}</details>`}</td>
<td data-label="CU per evaluation (est.)" class="num">${count(r.cuPerEvaluation)}${r.cuMore === undefined ? undefined : html`<div class="muted note">and ${r.cuMore}</div>`}</td>
<td data-label="CU per day (est.)" class="num">${count(r.cuPerDay)}</td>
</tr>`,
  );
  const caption = 'Compute units are estimates from the calls of one evaluation of each kind (first pages): avawatch counts what it spends per API (below), not per rule.';
  return html`<section id="rules">
<h2>Rules (${count(rules.length)})</h2>
${rows.length === 0 ? html`<p class="muted">No rules are loaded.</p>` : table(caption, ['Rule', 'Kind', 'Interval', 'Last success', 'Failures in a row', 'CU per evaluation (est.)', 'CU per day (est.)'], rows, [4, 5, 6])}
</section>`;
}

function validatorsSection(rows: readonly ValidatorRow[], nowS: number): SafeHtml {
  if (rows.length === 0) return html``;
  const { shown, more } = capped(rows, '/metrics has every one');
  const body = shown.map(
    (v) => html`<tr>
<td data-label="Node" class="id">${v.nodeId}</td>
<td data-label="Network">${v.network}</td>
<td data-label="Status">${v.status ?? '—'}</td>
<td data-label="Validation ends">${v.end === undefined ? '—' : since(v.end, nowS)}</td>
<td data-label="Uptime" class="num">${v.uptimePercent === undefined ? '—' : `${round(v.uptimePercent, 2)}%`}</td>
<td data-label="Rules">${v.rules.join(', ')}</td>
</tr>`,
  );
  return html`<section id="validators">
<h2>Watched validators (${count(rows.length)})</h2>
${table('The validation that ends first on top. Uptime from validator-health rules, as the service\'s node observed it.', ['Node', 'Network', 'Status', 'Validation ends', 'Uptime', 'Rules'], body, [4])}${more}
</section>`;
}

function l1Section(rows: readonly L1ValidatorRow[]): SafeHtml {
  if (rows.length === 0) return html``;
  const { shown, more } = capped(rows, '/metrics has every one');
  const body = shown.map(
    (v) => html`<tr>
<td data-label="Validation" class="id">${v.validationId}</td>
<td data-label="Node" class="id">${v.nodeId}</td>
<td data-label="Subnet" class="id">${v.subnetId}</td>
<td data-label="Balance" class="num">${v.balanceAvax.toLocaleString('en-US', { maximumFractionDigits: 9 })} AVAX</td>
<td data-label="Runway" class="num">${v.runwaySeconds === undefined ? html`<span class="muted">not known yet</span>` : formatElapsed(v.runwaySeconds * 1000)}</td>
<td data-label="Rules">${v.rules.join(', ')}</td>
</tr>`,
  );
  return html`<section id="l1">
<h2>L1 validators (${count(rows.length)})</h2>
${table('Shortest runway on top: how long the balance lasts at the fee the validator actually burned.', ['Validation', 'Node', 'Subnet', 'Balance', 'Runway', 'Rules'], body, [3, 4])}${more}
</section>`;
}

function deliverySection(s: StatusSnapshot): SafeHtml {
  const budget = (b: BudgetRow) => html`<tr>
<td data-label="API">${b.api}</td>
<td data-label="This minute: used" class="num">${count(b.perMinute - b.remainingMinute)} of ${count(b.perMinute)}</td>
<td data-label="This minute: left" class="num">${count(b.remainingMinute)}</td>
<td data-label="Today (UTC): used" class="num">${count(b.perDay - b.remainingDay)} of ${count(b.perDay)}</td>
<td data-label="Today (UTC): left" class="num${b.remainingDay < b.perDay / 10 ? ' bad' : ''}">${count(b.remainingDay)}</td>
<td data-label="Spent since start" class="num">${count(b.spentSinceStart)}</td>
</tr>`;
  return html`<section id="delivery">
<h2>Outbox</h2>
<p>${count(s.outbox.pending)} pending · <span class="${s.outbox.dead > 0 ? 'bad' : ''}">${count(s.outbox.dead)} dead</span>${s.outbox.dead > 0 ? html` <span class="muted">(<code>avawatch outbox --state dead</code> tells why)</span>` : undefined}</p>
<h2>API budget</h2>
${table('Compute units (CU) as avawatch counts them, corrected by the service\'s ratelimit-remaining header.', ['API', 'This minute: used', 'This minute: left', 'Today (UTC): used', 'Today (UTC): left', 'Spent since start'], s.budgets.map(budget), [1, 2, 3, 4, 5])}
</section>`;
}

/** The first MAX_ROWS items, and a line saying how many more there are and where to see them. */
function capped<T>(items: readonly T[], where: string): { shown: readonly T[]; more: SafeHtml | undefined } {
  if (items.length <= MAX_ROWS) return { shown: items, more: undefined };
  return { shown: items.slice(0, MAX_ROWS), more: html`<p class="muted">and ${count(items.length - MAX_ROWS)} more, not shown (${where}).</p>` };
}

function table(caption: string, headers: readonly string[], rows: readonly SafeHtml[], numeric: readonly number[] = []): SafeHtml {
  return html`<table>
<caption>${caption}</caption>
<thead><tr>${headers.map((h, i) => (numeric.includes(i) ? html`<th class="num">${h}</th>` : html`<th>${h}</th>`))}</tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
}

/** A moment as UTC text and how far from now it is: "2026-03-02 12:00 UTC (5m ago)". */
function since(unixS: number, nowS: number): SafeHtml {
  if (!validTime(unixS)) return when(unixS);
  const diff = (unixS - nowS) * 1000;
  const relative = Math.abs(diff) < 1000 ? 'now' : diff < 0 ? `${formatElapsed(-diff)} ago` : `in ${formatElapsed(diff)}`;
  return html`${when(unixS)} <span class="muted">(${relative})</span>`;
}

/**
 * A moment as UTC text. Times come from the service (a validation's end): one the contract
 * allows but a Date cannot hold (1e13, 1e308 seconds) is shown as the number it is.
 */
function when(unixS: number): SafeHtml {
  if (!validTime(unixS)) return html`${String(unixS)} <span class="muted">(not a valid time)</span>`;
  const iso = new Date(unixS * 1000).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

function validTime(unixS: number): boolean {
  return !Number.isNaN(new Date(unixS * 1000).getTime());
}

function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function round(n: number, digits: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits });
}
