import { createHash } from 'node:crypto';
import { html, SafeHtml } from './escape.js';
import { capped, count, since, table, when } from './format.js';
import { dataSourcesSection, receiversSection, silencesSection, timelineSection } from './sections.js';
import type { RuleStatus, StatusSnapshot } from './snapshot.js';
import { l1Section, validatorsSection } from './validators-section.js';
import { networkSection } from './network-section.js';

export { MAX_ROWS } from './format.js';

/** The page reloads itself this often (a meta refresh: no JavaScript). */
export const REFRESH_SECONDS = 10;

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
footer{margin-top:2rem;font-size:.85rem}a{color:var(--info)}h3{font-size:1rem;margin:1rem 0 .25rem}
.tiles{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(21rem,1fr));gap:.6rem}
.tile{min-width:0;overflow-wrap:anywhere;border:1px solid var(--line);border-radius:.4rem;padding:.4rem .6rem}.tile p{margin:.1rem 0}.tile-head{font-size:1rem}
.verdict{display:inline-block;padding:0 .4rem;border-radius:.25rem;border:1px solid currentColor;font-size:.8rem;font-weight:700}
.facts{font-size:.85rem}.labels{font-size:.8rem}.label{display:inline-block;border:1px solid var(--line);border-radius:.25rem;padding:0 .3rem;margin-right:.25rem}
.chart{margin:.2rem 0}.chart svg{display:block;width:100%;max-width:24rem;height:auto;color:var(--fg)}.chart figcaption,.chart-empty{font-size:.8rem}
.chart .line{fill:none;stroke:currentColor;stroke-width:1.5}.chart .last{fill:currentColor}
.chart .thr{stroke:var(--crit);stroke-width:1;stroke-dasharray:5 3}.chart .thr-label{fill:var(--muted);font:9px var(--sans)}
.chart .band{fill:var(--info);fill-opacity:.18;stroke:none}.chart .median{fill:none;stroke:var(--info);stroke-width:1;stroke-dasharray:3 2}
@media (max-width:40rem){body{padding:.5rem}h1{font-size:1.2rem}h2{margin-top:1rem}.tiles{grid-template-columns:1fr}thead{display:none}table,tbody,tr,td{display:block;width:100%}tr{border:1px solid var(--line);border-radius:.4rem;margin:.5rem 0;padding:.25rem 0}td{border:0;padding:.15rem .6rem}td.num{text-align:left}td{overflow-wrap:anywhere}td[data-label]::before{content:attr(data-label) ": ";color:var(--muted);font:15px/1.45 var(--sans)}caption{display:block}}
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
<title>${firing > 0 ? `avawatch: ${firing} firing` : blindSources(s).length > 0 ? 'avawatch: blind' : 'avawatch: nothing firing'}</title>
<style>${new SafeHtml(CSS)}</style>
</head>
<body>
<header>
<h1>avawatch</h1>
<p>${readiness(s.ready)} · version ${s.version} · as of ${when(s.now.getTime() / 1000)} · refreshes every ${REFRESH_SECONDS} s</p>
${s.ready.ready ? undefined : html`<ul class="bad">${s.ready.problems.map((p) => html`<li>${p}</li>`)}</ul>`}
</header>
<main>
${validatorsSection(s.validators, s.explorers, nowS, s.noValidators === true)}
${networkSection(s.networks ?? [], nowS)}
${l1Section(s.l1Validators, s.explorers)}
${alertsSection(s, nowS)}
${timelineSection(s.timeline, s.explorers, nowS)}
${silencesSection(s.silences, nowS)}
${receiversSection(s, nowS)}
${dataSourcesSection(s)}
${rulesSection(s.rules, nowS)}
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
<td data-label="Summary">${a.summary}${a.held === undefined ? undefined : html`<div class="note warning held">${a.held}</div>`}${details(a.details)}</td>
<td data-label="Since">${since(Date.parse(a.startsAt) / 1000, nowS)}</td>
</tr>`,
  );
  return html`<section id="alerts">
<h2>Firing alerts (${count(s.alerts.length)})</h2>
${rows.length === 0 ? quiet(s) : table('Newest first.', ['Severity', 'Rule', 'Subject', 'Summary', 'Since'], rows)}${more}
</section>`;
}

/** The sources every rule reading them fails on: what avawatch cannot see. */
function blindSources(s: StatusSnapshot): StatusSnapshot['dataSources'] {
  return s.dataSources.filter((d) => d.state === 'blind');
}

/**
 * Nothing fires: green only when avawatch can see. A blind source (or a failing rule) fires
 * nothing because nothing is read, so the page says that instead.
 */
function quiet(s: StatusSnapshot): SafeHtml {
  const blind = blindSources(s);
  if (blind.length > 0) {
    return html`<p class="bad">Nothing is firing, but avawatch is blind: it cannot read ${blind.map((d) => d.name).join(', ')}, so nothing would fire.</p>
<ul class="note">${blind.map((d) => html`<li>${d.name}: ${d.why}</li>`)}</ul>`;
  }
  const failing = s.rules.filter((r) => r.failuresInARow > 0);
  if (failing.length > 0) return html`<p class="warning">Nothing is firing, but ${count(failing.length)} rule${failing.length === 1 ? '' : 's'} cannot evaluate (${failing.map((r) => r.name).join(', ')}): ${failing.length === 1 ? 'what it watches is' : 'what they watch is'} not seen. Rules (below) says why.</p>`;
  return html`<p class="good">Nothing is firing.</p>`;
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
