import { describe, expect, it } from 'vitest';
import type { FiringAlert } from '../alerts/view.js';
import { Limiter } from '../api/limiter.js';
import { systemClock } from '../base/clock.js';
import { FailureCounts } from '../engine/failing.js';
import type { NetworkBaseline } from '../engine/incidents.js';
import { incidentCondition } from '../incidents/condition.js';
import type { ChildRef, Incident } from '../incidents/types.js';
import { createMetrics } from '../metrics/registry.js';
import type { BaselineView } from '../rules/baseline.js';
import type { Sample } from '../store/index.js';
import { heldText } from './network.js';
import { renderStatusPage } from './page.js';
import { statusSnapshot, type StatusSources } from './snapshot.js';

// What a person sees of the network (issue 40): the band behind each validator's uptime line,
// the Network block with the baseline and the open incidents, and alerts held by an incident.

const NOW = Date.parse('2026-03-02T12:00:00Z');
const MIN = 60_000;
const A = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const F = 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ';
const HOSTILE = `<img src=x onerror=alert(1)>"'&`;

function view(over: Partial<BaselineView> = {}): BaselineView {
  return {
    network: 'mainnet',
    at: NOW - 4 * MIN,
    usable: true,
    why: undefined,
    count: 1_523,
    quantiles: { uptime: { p10: 97, p50: 99.1, p90: 99.9 }, reachability: { p10: 90, p50: 100, p90: 100 } },
    versions: { '1.14.1': 900, '1.14.0': 400, '1.13.5': 100, '1.13.4': 60, '1.13.3': 40, '1.13.2': 20, '1.13.1': 3 },
    belowShare: () => 0,
    figureOf: () => undefined,
    ...over,
  };
}

const usable = (over: Partial<BaselineView> = {}): NetworkBaseline => ({ view: view(over), ageMs: 4 * MIN, stale: undefined });

/** Six hours of samples every 10 minutes: the validator's uptime and the network's percentiles. */
function history(series: string, entity: string): Sample[] {
  const at = (i: number) => NOW - (36 - i) * 10 * MIN;
  const value: Record<string, number> = { network_uptime_p10: 97, network_uptime_p50: 99.1, network_uptime_p90: 99.9 };
  if (series === 'uptime_percent') return Array.from({ length: 37 }, (_, i) => ({ series, entity, at: at(i), value: i === 20 ? 90 : 98.5 }));
  if (entity === 'mainnet' && series in value) return Array.from({ length: 37 }, (_, i) => ({ series, entity, at: at(i), value: value[series] as number }));
  return [];
}

function sources(baselines: NetworkBaseline[], firing: FiringAlert[] = []): StatusSources {
  const metrics = createMetrics({ version: 't', outboxPending: () => 0, firing: () => [], ruleSamples: () => [], ruleGauges: [] });
  const limiter = () => new Limiter({ limits: { perMinute: 100, perDay: 1000 }, maxWaitMs: 0, clock: systemClock });
  return {
    version: 't',
    now: () => new Date(NOW),
    rules: [],
    firing: () => firing,
    samples: () => [],
    failures: new FailureCounts(),
    metrics,
    outbox: () => ({ pending: 0, dead: 0 }),
    limiters: { data: limiter(), metrics: limiter() },
    ready: () => ({ ready: true, problems: [] }),
    inventory: [
      { nodeId: A, name: 'alpha', network: 'mainnet', labels: { host: 'h1' } },
      { nodeId: F, name: 'fox', network: 'fuji', labels: {} },
    ],
    history,
    baselines: () => baselines,
  };
}

async function page(s: StatusSources): Promise<string> {
  return renderStatusPage(await statusSnapshot(s));
}

/** The page as text a person reads: no tags, entities decoded. */
function words(html: string): string {
  const entities: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };
  return html.replace(/<[^>]+>/g, '').replace(/&(lt|gt|quot|#39|amp);/g, (e) => entities[e] as string);
}

/** The tile of one validator, as the page renders it. */
function tile(html: string, name: string): string {
  const start = html.indexOf(`<strong class="name">${name}</strong>`);
  return html.slice(start, html.indexOf('</li>', start));
}

const child = (i: number): ChildRef => ({ rule: 'validator-health', key: `NodeID-${i}:uptime`, family: 'validator-health/uptime', network: 'mainnet', validator: `v${i}`, nodeId: `NodeID-${i}`, state: 'firing', since: 0, severity: 'warning' });

function incidentAlert(i: Incident): FiringAlert {
  const c = incidentCondition(i);
  return { rule: 'avawatch', key: c.key, subject: c.subject, severity: c.severity ?? 'warning', summary: c.summary, labels: c.labels, details: c.details, tier: '', startsAt: new Date(NOW - 5 * MIN).toISOString() };
}

describe("the validator's chart: the network's band beside its own line", () => {
  it('shades the p10–p90 band and dashes the median from the history of its network, and says the median in words', async () => {
    const html = await page(sources([usable()]));
    const alpha = tile(html, 'alpha');
    expect(alpha).toMatch(/<polygon class="band" points="[\d.,\s]+"><\/polygon><path class="median" d="M[\d.,\sL]+"><\/path>/);
    // 37 moments: the band's upper edge there and its lower edge back.
    expect(alpha.match(/<polygon class="band" points="([^"]+)"/)?.[1]?.split(' ')).toHaveLength(74);
    expect(alpha).toMatch(/aria-label="Uptime from [^"]*: latest 98\.5%, lowest 90%; network median 99\.1%, p10–p90 97%–99\.9%"/);
    expect(alpha).toContain('<span class="network-note">; network median 99.1%</span>');
  });

  it('draws no band from a stale baseline, nor for a network without one, and says why', async () => {
    const stale: NetworkBaseline = { view: view({ usable: false, why: `stale: the sweep failed: HTTP 503 ${HOSTILE}` }), ageMs: 25 * MIN, stale: `stale: the sweep failed: HTTP 503 ${HOSTILE}` };
    const html = await page(sources([stale]));
    const alpha = tile(html, 'alpha');
    expect(alpha).not.toContain('class="band"');
    expect(alpha).not.toContain('class="median"');
    expect(alpha).toContain('; baseline stale: the sweep failed: HTTP 503 &lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;');
    const fox = tile(html, 'fox');
    expect(fox).toContain('no network baseline for fuji');
    expect(fox).not.toContain('class="band"');
  });
});

describe('the Network block', () => {
  it("shows each network's validators, its most common versions, the baseline's age, and no incident", async () => {
    const html = await page(sources([usable()]));
    const block = html.slice(html.indexOf('<section id="network">'), html.indexOf('</section>', html.indexOf('<section id="network">')));
    const text = words(block);
    expect(text).toContain('mainnet');
    expect(text).toContain('1,523 active validators · swept 2026-03-02 11:56:00 UTC (4m old) · median uptime 99.1% · median reachability 100%');
    expect(text).toContain('Versions: 1.14.1 900, 1.14.0 400, 1.13.5 100, 1.13.4 60, 1.13.3 40, and 23 on 2 other versions');
    expect(text).toContain('No open incident.');
    expect(text).not.toContain('stale');
  });

  it('says a stale baseline gives no verdict: each validator is judged alone', async () => {
    const html = await page(sources([{ view: view({ usable: false, why: 'stale: the last whole sweep is 25 min old' }), ageMs: 25 * MIN, stale: 'stale: the last whole sweep is 25 min old' }]));
    expect(html).toContain('<p class="warning baseline-stale">baseline stale: the last whole sweep is 25 min old: each validator is judged alone.</p>');
  });

  it('lists the open incidents: scope, group or family, the shares of stake, and the validators', async () => {
    const group: Incident = { key: 'incident:group:mainnet:host=h1', scope: 'group', group: 'host=h1', network: 'mainnet', severity: 'critical', members: [1, 2, 3].map(child), validators: ['v1', 'v2', 'v3'], networkShare: 0.005, ownShare: 0.63 };
    const network: Incident = { key: 'incident:network:mainnet:validator-health/uptime', scope: 'network', family: 'validator-health/uptime', network: 'mainnet', severity: 'warning', members: [child(4)], validators: ['v4'], networkShare: 0.7, ownShare: 0.1 };
    const snapshot = await statusSnapshot(sources([usable()], [incidentAlert(group), incidentAlert(network)]));
    expect(snapshot.networks?.[0]?.incidents.map((i) => [i.scope, i.group ?? i.family, i.networkShare, i.ownShare, i.validators])).toEqual([
      ['group', 'host=h1', '0.5 %', '63 %', ['v1', 'v2', 'v3']],
      ['network', 'validator-health/uptime', '70 %', '10 %', ['v4']],
    ]);
    const text = words(renderStatusPage(snapshot));
    expect(text).toContain("critical your group host=h1\nhost h1 on mainnet: 3 validators — 63 % of your stake, 0.5 % of the network's\n0.5 %\n63 %\n3: v1, v2, v3");
    expect(text).toContain('warning network-wide validator-health/uptime\nnetwork-wide on mainnet: validator-health/uptime for 1 validator — 10 % of your stake, 70 % of the network\'s\n70 %\n10 %\n1: v4');
  });

  it("shows a hostile version, group or validator name as text, never as markup", async () => {
    const group: Incident = { key: 'incident:group:mainnet:host=x', scope: 'group', group: `host=${HOSTILE}`, network: 'mainnet', severity: 'warning', members: [child(1), child(2)], validators: [HOSTILE, 'v2'], ownShare: 0.5 };
    const html = await page(sources([usable({ versions: { [HOSTILE]: 5 } })], [incidentAlert(group)]));
    const block = html.slice(html.indexOf('<section id="network">'), html.indexOf('</section>', html.indexOf('<section id="network">')));
    expect(block).not.toContain('<img');
    expect(block).toContain('<code>&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;</code> 5');
    expect(block).toContain('<code>host=&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;</code>');
    expect(block).toContain('2: &lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;, v2');
  });

  it('is left out of a page with no baseline and no incident', async () => {
    expect(await page(sources([]))).not.toContain('<section id="network">');
  });
});

describe('an alert held by an incident', () => {
  it('is still listed as firing, and says it is held and by which incident', async () => {
    const alert: FiringAlert = { rule: 'validator-health', key: `${A}:uptime`, subject: A, severity: 'warning', summary: 'alpha uptime 79%', labels: { scope: 'group' }, details: {}, tier: '', startsAt: new Date(NOW - MIN).toISOString() };
    const other: FiringAlert = { ...alert, key: 'other', summary: 'not held' };
    const s = sources([usable()], [alert, other]);
    s.heldFor = (rule, key) => (rule === 'validator-health' && key === `${A}:uptime` ? `held by incident incident:group:mainnet:host=h1: host h1 on mainnet: 3 validators ${HOSTILE}` : undefined);
    const html = await page(s);
    const row = (summary: string) => html.slice(html.lastIndexOf('<tr>', html.indexOf(summary)), html.indexOf('</tr>', html.indexOf(summary)));
    expect(row('alpha uptime 79%')).toContain('<div class="note warning held">held by incident incident:group:mainnet:host=h1: host h1 on mainnet: 3 validators &lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;</div>');
    expect(row('not held')).not.toContain('held by');
  });

  it('names the receivers it is held from when it is not held from all', () => {
    const why = 'held by incident incident:group:mainnet:host=h1: host h1';
    expect(heldText(['slack', 'mail'], () => why)).toBe(why);
    expect(heldText(['slack', 'mail', 'pager'], (r) => (r === 'pager' ? undefined : why))).toBe(`${why} (from slack, mail)`);
    expect(heldText(['slack'], () => undefined)).toBeUndefined();
  });
});
