import { formatElapsed } from '../base/duration.js';
import { html, type SafeHtml } from './escape.js';
import { count, round, since, table, when } from './format.js';
import type { IncidentRow, NetworkRow } from './network.js';

// The "Network" block: is it me or the network? Each network's baseline (its validators, versions
// and age, or why it is stale and so gives no verdict) and the incidents open on it.

const SCOPE_WORDS: Record<string, string> = { network: 'network-wide', group: 'your group' };

function baseline(n: NetworkRow): SafeHtml {
  const figures = [
    n.count === undefined ? undefined : html`<strong>${count(n.count)}</strong> active validator${n.count === 1 ? '' : 's'}`,
    n.sweptAt === undefined ? undefined : html`swept ${when(n.sweptAt)}${n.ageMs === undefined ? undefined : html` <span class="muted">(${formatElapsed(n.ageMs)} old)</span>`}`,
    n.median.uptime === undefined ? undefined : html`median uptime <strong>${round(n.median.uptime, 2)}%</strong>`,
    n.median.reachability === undefined ? undefined : html`median reachability ${round(n.median.reachability, 2)}%`,
  ].filter((p) => p !== undefined);
  const stale = n.stale === undefined ? undefined : html`<p class="warning baseline-stale">${n.stale}: each validator is judged alone.</p>`;
  const other = n.otherVersions.validators === 0 ? undefined : html`, and ${count(n.otherVersions.validators)} on ${count(n.otherVersions.versions)} other version${n.otherVersions.versions === 1 ? '' : 's'}`;
  const versions = n.versions.length === 0 ? undefined : html`<p class="facts versions">Versions: ${n.versions.map((v, i) => html`${i > 0 ? ', ' : ''}<code>${v.version}</code> ${count(v.count)}`)}${other}</p>`;
  return html`${figures.length === 0 ? undefined : html`<p class="facts">${figures.map((p, i) => html`${i > 0 ? ' · ' : ''}${p}`)}</p>`}${stale}${versions}`;
}

function incidents(list: readonly IncidentRow[], nowS: number): SafeHtml {
  if (list.length === 0) return html`<p class="muted">No open incident.</p>`;
  const rows = list.map(
    (i) => html`<tr>
<td data-label="Scope"><span class="sev ${i.severity}">${i.severity}</span> ${SCOPE_WORDS[i.scope] ?? i.scope}${i.group === undefined ? undefined : html` <code>${i.group}</code>`}${i.family === undefined ? undefined : html` <code>${i.family}</code>`}</td>
<td data-label="Incident">${i.summary}</td>
<td data-label="Network's stake" class="num">${i.networkShare ?? '—'}</td>
<td data-label="Your stake" class="num">${i.ownShare ?? '—'}</td>
<td data-label="Validators">${count(i.validators.length)}: ${i.validators.join(', ')}</td>
<td data-label="Since">${since(i.since, nowS)}</td>
</tr>`,
  );
  return table("Open incidents: one notification each; the alerts of the validators they list are held back from the receivers the incident reaches (never their resolutions).", ['Scope', 'Incident', "Network's stake", 'Your stake', 'Validators', 'Since'], rows, [2, 3]);
}

export function networkSection(rows: readonly NetworkRow[], nowS: number): SafeHtml {
  if (rows.length === 0) return html``;
  const blocks = rows.map(
    (n) => html`<div class="network" id="network-${n.network}">
<h3>${n.network}</h3>
${baseline(n)}
${incidents(n.incidents, nowS)}
</div>`,
  );
  return html`<section id="network">
<h2>Network</h2>
<p class="muted note">Each validator's chart shades the network's p10–p90 uptime and dashes its median: a dip inside the band is the network's, below it yours.</p>
${blocks}
</section>`;
}
