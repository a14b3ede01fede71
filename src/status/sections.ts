import type { Silence } from '../store/index.js';
import { html, type SafeHtml } from './escape.js';
import { capped, count, since, table, when } from './format.js';
import type { DataSourceRow, ReceiverRow } from './health.js';
import { nodeLink, txLink, type Explorers } from './links.js';
import type { BudgetRow, StatusSnapshot, TimelineRow } from './snapshot.js';
import { TIMELINE_MAX } from './snapshot.js';

// The page below the firing alerts: the timeline, silences, receivers and data sources.

const STATUS_WORD: Record<TimelineRow['status'], string> = { firing: 'fired', resolved: 'resolved', event: 'event' };

export function timelineSection(rows: readonly TimelineRow[], explorers: Explorers, nowS: number): SafeHtml {
  const body = rows.map(
    (e) => html`<tr>
<td data-label="When">${since(e.at, nowS)}</td>
<td data-label="Severity"><span class="sev ${e.status === 'resolved' ? 'good' : e.severity}">${e.status === 'resolved' ? 'resolved' : e.severity}</span> <span class="muted">${STATUS_WORD[e.status]}</span></td>
<td data-label="What">${e.summary}${e.txs.length === 0 ? undefined : html`<div class="note">tx ${e.txs.map((t, i) => html`${i > 0 ? ', ' : ''}${txLink(explorers, e.network, t)}`)}</div>`}<div class="muted note">${e.rule}</div></td>
<td data-label="Validator">${validator(e, explorers)}</td>
</tr>`,
  );
  return html`<section id="timeline">
<h2>Timeline (last 24 h)</h2>
${body.length === 0 ? html`<p class="muted">Nothing happened in the last 24 hours.</p>` : table(`Events, alerts firing and resolving, newest first (at most ${TIMELINE_MAX}; \`avawatch history\` has them all).`, ['When', 'Severity', 'What', 'Validator'], body)}
</section>`;
}

function validator(e: TimelineRow, explorers: Explorers): SafeHtml | string {
  if (e.node === undefined) return e.validator ?? '—';
  if (e.validator === undefined || e.validator === e.node) return nodeLink(explorers, e.network, e.node);
  return html`${e.validator}<div class="note">${nodeLink(explorers, e.network, e.node)}</div>`;
}

export function silencesSection(silences: readonly Silence[], nowS: number): SafeHtml {
  const { shown, more } = capped(silences, '`avawatch silence list` has them all');
  const body = shown.map(
    (s) => html`<tr>
<td data-label="Matchers" class="id">${s.matchers.map((m, i) => `${i > 0 ? ', ' : ''}${m.name}${m.regex ? '=~' : '='}${m.value}`).join('')}</td>
<td data-label="Until">${since(s.endsAt / 1000, nowS)}</td>
<td data-label="Comment">${s.comment}</td>
<td data-label="By">${s.createdBy}</td>
</tr>`,
  );
  return html`<section id="silences">
<h2>Active silences (${count(silences.length)})</h2>
${body.length === 0 ? html`<p class="muted">No silence is in force.</p>` : table('Notifications matching every matcher are recorded, not sent.', ['Matchers', 'Until', 'Comment', 'By'], body)}${more}
</section>`;
}

export function receiversSection(s: StatusSnapshot, nowS: number): SafeHtml {
  // A receiver that takes nothing is a readiness problem of its own (/readyz's line names it).
  const failing = (name: string) => s.ready.problems.some((p) => p.startsWith(`receiver ${name}:`));
  const state = (r: ReceiverRow) =>
    r.disabled !== undefined
      ? html`<span class="bad">disabled</span> <span class="muted">${r.disabled}</span>`
      : failing(r.name)
        ? html`<span class="bad">failing</span>`
        : html`<span class="good">enabled</span>`;
  const body = s.receivers.map(
    (r: ReceiverRow) => html`<tr>
<td data-label="Receiver">${r.name} <span class="muted">(${r.type})</span></td>
<td data-label="State">${state(r)}</td>
<td data-label="Last success">${r.lastSuccess === undefined ? html`<span class="muted">never</span>` : since(r.lastSuccess, nowS)}</td>
<td data-label="Pending" class="num">${count(r.pending)}</td>
<td data-label="Dead" class="num${r.dead > 0 ? ' bad' : ''}">${count(r.dead)}</td>
<td data-label="Last error">${r.lastError === undefined ? '—' : html`${r.lastError}${r.lastErrorAt === undefined ? undefined : html`<div class="muted note">${when(r.lastErrorAt)}</div>`}`}</td>
</tr>`,
  );
  return html`<section id="receivers">
<h2>Receivers</h2>
<p>Outbox: ${count(s.outbox.pending)} pending · <span class="${s.outbox.dead > 0 ? 'bad' : ''}">${count(s.outbox.dead)} dead</span>${s.outbox.dead > 0 ? html` <span class="muted">(<code>avawatch outbox --state dead</code> tells why)</span>` : undefined}</p>
${body.length === 0 ? html`<p class="muted">No receiver is configured.</p>` : table('Errors of notifications still pending or dead, secrets scrubbed.', ['Receiver', 'State', 'Last success', 'Pending', 'Dead', 'Last error'], body, [3, 4])}
</section>`;
}

const SOURCE_CLASS: Record<DataSourceRow['state'], string> = { ok: 'good', limited: 'warning', blind: 'bad', unused: 'muted' };

export function dataSourcesSection(s: StatusSnapshot): SafeHtml {
  const sources = s.dataSources.map(
    (d) => html`<tr>
<td data-label="Source">${d.name}</td>
<td data-label="State"><span class="${SOURCE_CLASS[d.state]}">${d.state}</span></td>
<td data-label="Why">${d.why}</td>
</tr>`,
  );
  const budget = (b: BudgetRow) => html`<tr>
<td data-label="API">${b.api}</td>
<td data-label="This minute: used" class="num">${count(b.perMinute - b.remainingMinute)} of ${count(b.perMinute)}</td>
<td data-label="This minute: left" class="num">${count(b.remainingMinute)}</td>
<td data-label="Today (UTC): used" class="num">${count(b.perDay - b.remainingDay)} of ${count(b.perDay)}</td>
<td data-label="Today (UTC): left" class="num${b.remainingDay < b.perDay / 10 ? ' bad' : ''}">${count(b.remainingDay)}</td>
<td data-label="Spent since start" class="num">${count(b.spentSinceStart)}</td>
</tr>`;
  return html`<section id="sources">
<h2>Data sources</h2>
${table('ok; limited: paused by a 429 or out of budget; blind: every rule reading it fails.', ['Source', 'State', 'Why'], sources)}
<h3>API budget</h3>
${table('Compute units (CU) as avawatch counts them, corrected by the service\'s ratelimit-remaining header.', ['API', 'This minute: used', 'This minute: left', 'Today (UTC): used', 'Today (UTC): left', 'Spent since start'], s.budgets.map(budget), [1, 2, 3, 4, 5])}
</section>`;
}
