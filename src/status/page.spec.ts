import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_ROWS, renderStatusPage, STATUS_PAGE_CSP } from './page.js';
import type { StatusSnapshot } from './snapshot.js';

const HOSTILE = `<script>alert("x")</script>'&\r\n<img src=x onerror=alert(1)>`;
const NOW = new Date('2026-03-02T12:00:00Z');
const nowS = NOW.getTime() / 1000;
const NODE = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';

function snapshot(over: Partial<StatusSnapshot> = {}): StatusSnapshot {
  return {
    now: NOW,
    version: '0.1.0',
    ready: { ready: true, problems: [] },
    alerts: [
      {
        rule: 'icm-stuck',
        key: '0xm1',
        subject: HOSTILE,
        severity: 'warning',
        summary: `ICM message 0xm1 is "${HOSTILE}"`,
        labels: {},
        details: { 'Reward token': HOSTILE, [HOSTILE]: 'key too' },
        tier: '',
        startsAt: '2026-03-02T11:55:00.000Z',
      },
    ],
    rules: [
      { name: 'icm-stuck', kind: 'icm-pending', when: 'every 2m', severity: 'warning', lastSuccess: nowS - 30, failuresInARow: 2, lastError: HOSTILE, cuPerEvaluation: 20, cuPerDay: 14_400, cuMore: 'up to 20 pages per address' },
      { name: 'never-ran', kind: 'validation-end', when: 'every 5m', severity: 'warning', lastSuccess: undefined, failuresInARow: 0, lastError: undefined, cuPerEvaluation: 20, cuPerDay: 5_760, cuMore: undefined },
    ],
    validators: [
      {
        network: 'mainnet',
        nodeId: NODE,
        name: `validator ${HOSTILE}`,
        labels: { team: HOSTILE },
        status: HOSTILE,
        end: nowS + 2 * 86_400,
        uptimePercent: 98.456,
        version: 'avalanche/1.14.1',
        rules: ['validation-ending'],
        verdict: { firing: 2, blind: undefined, watched: true },
        chart: { points: [{ at: nowS - 7200, value: 97 }, { at: nowS - 3600, value: 96.5 }, { at: nowS, value: 98.456 }], thresholds: [{ label: 'reward 80%', value: 80 }, { label: 'warning 85%', value: 85 }] },
      },
    ],
    l1Validators: [{ network: 'mainnet', subnetId: 's1', validationId: HOSTILE, nodeId: 'NodeID-x', balanceAvax: 1.5, runwaySeconds: 3 * 86_400 + 3600, rules: ['l1-balance'], verdict: { firing: 0, blind: 'rule l1-balance fails: 503', watched: true }, chart: { points: [], thresholds: [] } }],
    outbox: { pending: 3, dead: 1 },
    budgets: [{ api: 'data', perMinute: 6000, remainingMinute: 5960, perDay: 1_200_000, remainingDay: 1_199_000, spentSinceStart: 1000 }],
    timeline: [
      { at: nowS - 3600, status: 'event', severity: 'critical', rule: 'my-validators', summary: `validation ended without a reward ${HOSTILE}`, validator: 'validator-1', network: 'mainnet', node: NODE, txs: ['tx/1?a=<b>'] },
      { at: 1e13, status: 'resolved', severity: 'warning', rule: 'validation-ending', summary: 'far away', validator: undefined, network: undefined, node: undefined, txs: [] },
    ],
    silences: [{ id: 1, matchers: [{ name: 'node', value: HOSTILE, regex: false }], startsAt: NOW.getTime() - 60_000, endsAt: NOW.getTime() + 3_600_000, comment: HOSTILE, createdBy: 'ops', createdAt: NOW.getTime() - 60_000 }],
    receivers: [
      { name: 'slack', type: 'slack', disabled: undefined, lastSuccess: nowS - 120, pending: 3, dead: 1, lastError: `HTTP 500 ${HOSTILE}`, lastErrorAt: nowS - 60 },
      { name: 'mail', type: 'email', disabled: 'smtp.host is empty', lastSuccess: undefined, pending: 0, dead: 0, lastError: undefined, lastErrorAt: undefined },
    ],
    dataSources: [
      { name: 'Data API', state: 'limited', why: 'the service answered 429: paused until 12:05:00 UTC; 1,199,000 CU left today' },
      { name: 'Metrics API', state: 'unused', why: 'no rule reads it' },
    ],
    explorers: { mainnet: 'https://explorer.example/base/', fuji: 'https://test.example' },
    ...over,
  };
}

describe('the status page', () => {
  it('shows chain text as text: no value reaches the markup unescaped', () => {
    const page = renderStatusPage(snapshot());
    expect(page).not.toContain('<script');
    expect(page).not.toContain('<img');
    expect(page).not.toMatch(/onerror=alert\(1\)>/);
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;\r\n&lt;img src=x onerror=alert(1)&gt;');
    // Every hostile value: subject, summary, detail key and value, rule error, status, validation id,
    // inventory name and label, timeline summary, silence matcher and comment, receiver error.
    expect(page.split('&lt;script&gt;').length - 1).toBe(13);
  });

  it('builds explorer links URL-encoded and escaped, per network', () => {
    const page = renderStatusPage(snapshot());
    expect(page).toContain(`<a class="id" rel="noreferrer" href="https://explorer.example/base/validators/${NODE}">${NODE}</a>`);
    expect(page).toContain('href="https://explorer.example/base/p-chain/tx/tx%2F1%3Fa%3D%3Cb%3E">tx/1?a=&lt;b&gt;</a>');
  });

  it('has the style its CSP allows by hash, no script, and refreshes itself', () => {
    const page = renderStatusPage(snapshot());
    const css = /<style>([\s\S]*?)<\/style>/.exec(page)?.[1] ?? '';
    expect(STATUS_PAGE_CSP).toContain(`'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'`);
    expect(page.match(/<style>/g)).toHaveLength(1);
    expect(page).not.toMatch(/<script|style="|javascript:/i);
    expect(page).toContain('<meta http-equiv="refresh" content="10">');
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  });

  it('says what a reader needs, in words', () => {
    const page = renderStatusPage(snapshot());
    expect(page).toContain('<title>avawatch: 1 firing</title>');
    expect(page).toContain('Firing alerts (1)');
    expect(page).toContain('<time datetime="2026-03-02T11:55:00.000Z">2026-03-02 11:55:00 UTC</time> <span class="muted">(5m ago)</span>');
    expect(page).toContain('<span class="muted">not yet</span>');
    expect(page).toContain('20<div class="muted note">and up to 20 pages per address</div>');
    expect(page).toContain('(in 2d)');
    expect(page).toContain('98.46%');
    expect(page).toContain('1.5 AVAX');
    expect(page).toContain('3d1h');
    expect(page).toContain('3 pending');
    expect(page).toContain('1 dead</span> <span class="muted">(<code>avawatch outbox --state dead</code> tells why)');
    expect(page).toContain('40 of 6,000');
    expect(page).toContain('1,000 of 1,200,000');
  });

  it('starts with the validators, then firing alerts, timeline, silences, receivers, data sources, and rules last', () => {
    const page = renderStatusPage(snapshot());
    const at = ['validators', 'l1', 'alerts', 'timeline', 'silences', 'receivers', 'sources', 'rules'].map((id) => page.indexOf(`<section id="${id}">`));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('gives each validator a verdict, its figures in words and an uptime chart with the thresholds marked', () => {
    const page = renderStatusPage(snapshot());
    expect(page).toContain('<span class="verdict bad">2 firing</span> <strong class="name">validator &lt;script&gt;');
    expect(page).toContain('<span class="verdict warning">blind</span>');
    expect(page).toContain('<p class="note warning">Blind: rule l1-balance fails: 503</p>');
    expect(page).toContain('uptime <strong>98.46%</strong>');
    expect(page).toContain('avalanche/1.14.1');
    const svg = /<svg [^>]*aria-label="([^"]*)"[^>]*>([\s\S]*?)<\/svg>/.exec(page);
    expect(svg?.[1]).toBe('Uptime from 2026-03-02 10:00 UTC to 2026-03-02 12:00 UTC: latest 98.46%, lowest 96.5%; lines: reward 80%, warning 85%');
    expect((svg?.[2] ?? '').match(/<path class="line" d="M[\d.]+,[\d.]+ L[\d.]+,[\d.]+ L[\d.]+,[\d.]+"/)).not.toBeNull();
    expect((svg?.[2] ?? '').match(/<line class="thr"/g)).toHaveLength(2);
    expect(svg?.[2]).toContain('<text class="thr-label" x="4"');
    expect(svg?.[2]).toContain('>reward 80%</text>');
    expect(page).toContain('Uptime since 2026-03-02 10:00 UTC: latest <strong>98.46%</strong>, lowest 96.5%');
    // An empty history: words, no chart.
    expect(page).toContain('<p class="chart-empty muted">Balance: no history yet.</p>');
  });

  it('shows the timeline, silences, receivers and data sources in words', () => {
    const page = renderStatusPage(snapshot());
    expect(page).toContain('Timeline (last 24 h)');
    expect(page).toContain('<span class="sev critical">critical</span> <span class="muted">event</span>');
    expect(page).toContain('<span class="sev good">resolved</span>');
    expect(page).toContain('10000000000000 <span class="muted">(not a valid time)</span>');
    expect(page).toContain('validator-1<div class="note"><a class="id"');
    expect(page).toContain('Active silences (1)');
    expect(page).toContain('<td data-label="Matchers" class="id">node=&lt;script&gt;');
    expect(page).toContain('<span class="bad">disabled</span> <span class="muted">smtp.host is empty</span>');
    expect(page).toContain('<td data-label="Last success"><span class="muted">never</span></td>');
    expect(page).toContain('HTTP 500 &lt;script&gt;');
    expect(page).toContain('<span class="warning">limited</span></td>\n<td data-label="Why">the service answered 429: paused until 12:05:00 UTC; 1,199,000 CU left today</td>');
  });

  it('says so when the history is empty', () => {
    const page = renderStatusPage(snapshot({ timeline: [], silences: [], receivers: [] }));
    expect(page).toContain('Nothing happened in the last 24 hours.');
    expect(page).toContain('No silence is in force.');
    expect(page).toContain('No receiver is configured.');
  });

  it('says when nothing fires, and why it is not ready', () => {
    const page = renderStatusPage(snapshot({ alerts: [], validators: [], l1Validators: [], ready: { ready: false, problems: ['rule <x>: 3 evaluations failed in a row'] } }));
    expect(page).toContain('<title>avawatch: nothing firing</title>');
    // A rule that cannot evaluate fires nothing because it reads nothing: not green.
    expect(page).toContain('<p class="warning">Nothing is firing, but 1 rule cannot evaluate (icm-stuck): what it watches is not seen.');
    expect(page).not.toContain('<p class="good">Nothing is firing.</p>');
    expect(page).toContain('<span class="bad">not ready</span>');
    expect(page).toContain('<li>rule &lt;x&gt;: 3 evaluations failed in a row</li>');
    expect(page).not.toContain('<section id="validators">');
    expect(page).not.toContain('L1 validators');
  });

  it('shows a validation end the contract allows but a date cannot hold (1e13, 1e308 seconds) as the number it is', () => {
    const base = snapshot();
    const node = base.validators[0] as StatusSnapshot['validators'][number];
    const validators = [1e13, 1e308, -1e308].map((end, i) => ({ ...node, nodeId: `NodeID-${i}`, end, chart: { points: [{ at: end, value: 90 }, { at: 1e13, value: 91 }], thresholds: [] } }));
    const page = renderStatusPage({ ...base, validators });
    expect(page).toContain('ends 10000000000000 <span class="muted">(not a valid time)</span>');
    expect(page).toContain('ends 1e+308 <span class="muted">(not a valid time)</span>');
    expect(page).toContain('ends -1e+308 <span class="muted">(not a valid time)</span>');
    expect(page).toContain('Uptime from 10000000000000 (not a valid time) to 10000000000000 (not a valid time)');
    expect(page).toContain('Validators (3)');
  });

  it('says it is starting while rules have not been evaluated yet', () => {
    const page = renderStatusPage(snapshot({ ready: { ready: false, problems: ['starting: 2 rules not evaluated yet (a, b)'] } }));
    expect(page).toContain('<span class="bad">starting</span>');
    expect(page).toContain('<li>starting: 2 rules not evaluated yet (a, b)</li>');
  });

  it(`shows at most ${MAX_ROWS} rows a table, and says how many more and where`, () => {
    const base = snapshot();
    const node = base.validators[0] as StatusSnapshot['validators'][number];
    const validators = Array.from({ length: 10_000 }, (_, i) => ({ ...node, nodeId: `NodeID-${i}` }));
    const page = renderStatusPage({ ...base, validators });
    expect(page.match(/<li class="tile">/g)).toHaveLength(MAX_ROWS + 1); // and the L1 validator's
    expect(page).toContain('<p class="muted">and 9,800 more, not shown (/metrics has every one).</p>');
    expect(page).toContain('Validators (10,000)');
  });
});

describe('the validator tile: what the period can still take', () => {
  const tile = (over: Partial<StatusSnapshot['validators'][number]>) => {
    const base = snapshot().validators[0];
    if (!base) throw new Error('no validator in the snapshot');
    const page = renderStatusPage(snapshot({ validators: [{ ...base, name: 'alpha', labels: {}, status: 'active', ...over }] }));
    return page.slice(page.indexOf('<section id="validators">'), page.indexOf('</section>'));
  };

  it('says how long it can still be down and be paid, or that it cannot be paid any more', () => {
    // 40 days into a 100-day validation at 87%, 90% needed: 34.8 d up + 60 d left − 90 d = 4.8 d = 414,720 s.
    expect(tile({ budget: { seconds: 414_720, view: 'service' }, requirement: 90 })).toContain('<p class="facts budget">can be down <strong>4d 19h</strong> more and still be paid (90% needed)</p>');
    expect(tile({ budget: { seconds: 300_000, view: 'node' }, requirement: 90 })).toContain('can be down <strong>3d 11h</strong> more and still be paid (90% needed, node view)');
    expect(tile({ budget: { seconds: -172_800, view: 'service' }, requirement: 90 })).toContain('<strong class="bad">cannot be paid any more</strong> (90% needed)');
    expect(tile({ budget: { seconds: 414_720, view: 'service' }, status: 'completed' })).not.toContain('still be paid');
  });

  it("an auto-renewed validator's cycle, and when a delegation cannot be accepted any more (it would not last 14 days)", () => {
    const renewing = tile({ cycleEnd: nowS + 3 * 86_400, nextPeriod: 14 * 86_400, end: nowS + 3 * 86_400 });
    expect(renewing).toMatch(/auto-renewed, cycle ends .*\(in 3d\).*: renews for 14d · <span class="warning">closed to new delegations<\/span>: its cycle ends before the 14d a delegation must last/);
    expect(tile({ cycleEnd: nowS + 3 * 86_400, nextPeriod: 0 })).toContain(': it exits then');
    expect(tile({ end: nowS + 300 * 86_400 })).not.toContain('closed to new delegations');
    expect(tile({ end: nowS + 10 * 86_400 })).toContain('closed to new delegations</span>: its validation ends before the 14d a delegation must last');
  });
});

describe("the validator tile: the node's own view, the badge, the last event", () => {
  const base = () => snapshot().validators[0] as StatusSnapshot['validators'][number];
  const tileOf = (over: Partial<StatusSnapshot['validators'][number]>, more: Partial<StatusSnapshot> = {}) => {
    const page = renderStatusPage(snapshot({ validators: [{ ...base(), name: 'alpha', labels: {}, status: 'active', ...over }], ...more }));
    return page.slice(page.indexOf('<section id="validators">'), page.indexOf('</section>'));
  };
  const node = {
    network: 'mainnet', version: 'avalanchego/1.14.1', peers: 42, bootstrapped: { P: true, X: true, C: true }, failing: [], off: [],
    api: { answers: true as const }, outside: 'listed active, uptime 99.2%', verdict: undefined,
  };

  it('says what the node answers: its version, peers, chains bootstrapped, failing checks by name (escaped), and the network\'s view', () => {
    const tile = tileOf({ version: 'avalanchego/1.14.1', node: { ...node, failing: ['network', HOSTILE], bootstrapped: { P: true, X: true, C: false } } });
    expect(tile).toContain('<p class="facts node">Node: <span class="good">API answers</span> · runs <strong>avalanchego/1.14.1</strong> · <strong>42</strong> peers · <strong class="bad">not bootstrapped: C</strong> · the network: listed active, uptime 99.2%</p>');
    expect(tile).toContain('<span class="bad">failing health checks:</span> <code>network</code>, <code>&lt;script&gt;');
    expect(tile).not.toContain('<script');
    expect(tile).not.toContain('version not known');
    expect(tileOf({ node })).toContain('bootstrapped P, X, C');
  });

  it("says when the node's API is silent, and the verdict made with the network's view", () => {
    const down = tileOf({ node: { ...node, api: { answers: false, since: nowS - 300, error: 'connection refused' }, verdict: { tier: 'critical', text: 'the node is down: the service lists no active validation of it' } } });
    expect(down).toContain('<strong class="bad">API silent</strong> since <time');
    expect(down).toContain('<p class="note bad">connection refused; the node is down: the service lists no active validation of it</p>');
    const seen = tileOf({ node: { ...node, api: { answers: false, since: nowS - 300, error: 'timeout' }, verdict: { tier: 'warning', text: 'the network still sees it (listed active)' } } });
    expect(seen).toContain('<p class="note warning">timeout; the network still sees it (listed active)</p>');
  });

  it('colours the badge by the worst firing severity: a warning is not a critical, info is green', () => {
    expect(tileOf({ verdict: { firing: 1, worst: 'warning', blind: undefined, watched: true } })).toContain('<span class="verdict warning">1 firing</span>');
    expect(tileOf({ verdict: { firing: 2, worst: 'critical', blind: undefined, watched: true } })).toContain('<span class="verdict bad">2 firing</span>');
    expect(tileOf({ verdict: { firing: 1, worst: 'info', blind: undefined, watched: true } })).toContain('<span class="verdict good">1 firing</span>');
  });

  it('never says OK next to "not listed": the badge says it too', () => {
    const tile = tileOf({ status: 'not listed', verdict: { firing: 0, blind: undefined, watched: true, unlisted: true } });
    expect(tile).toContain('<span class="verdict bad">not listed</span>');
    expect(tile).toContain('<span class="bad">not listed</span>');
    expect(tile).not.toContain('>OK<');
  });

  it('never says OK next to a completed validation: the badge says it no longer validates', () => {
    const tile = tileOf({ status: 'completed', verdict: { firing: 0, blind: undefined, watched: true, ended: true } });
    expect(tile).toContain('<span class="verdict bad">not validating</span>');
    expect(tile).not.toContain('>OK<');
  });

  it("shows the validator's newest one-shot event, escaped", () => {
    const tile = tileOf({ lastEvent: { at: nowS - 3600, severity: 'critical', rule: 'my-validators', summary: `validation ended without a reward ${HOSTILE}` } });
    expect(tile).toContain('<p class="note last-event"><span class="sev critical">critical</span> validation ended without a reward &lt;script&gt;');
    expect(tile).toContain('<span class="muted">(<time datetime="2026-03-02T11:00:00.000Z" title="2026-03-02 11:00 UTC">1h ago</time>)</span></p>');
  });
});

describe('the first run, and a page that cannot see', () => {
  const calm = { alerts: [], validators: [], l1Validators: [], rules: [] };

  it('says there are no validators yet and how to add one', () => {
    const page = renderStatusPage(snapshot({ ...calm, noValidators: true }));
    expect(page).toContain('<h2>Validators (0)</h2>');
    expect(page).toContain('No validators yet');
    expect(page).toContain('validators:\n  - name: validator-1\n    nodeId: NodeID-…');
    expect(page).toContain('<code>avawatch init --node NodeID-… --network mainnet --api http://127.0.0.1:9650</code>');
    // Rules that name nodes themselves, not read yet: no hint.
    expect(renderStatusPage(snapshot({ ...calm, noValidators: false }))).not.toContain('No validators yet');
  });

  it('never says green "Nothing is firing" while a source is blind: it shows the blind state', () => {
    const blind = renderStatusPage(snapshot({ ...calm, dataSources: [{ name: 'Metrics API', state: 'blind', why: 'every rule reading it fails (1); c-chain: HTTP 503 <b>' }] }));
    expect(blind).not.toContain('<p class="good">Nothing is firing.</p>');
    expect(blind).toContain('<p class="bad">Nothing is firing, but avawatch is blind: it cannot read Metrics API, so nothing would fire.</p>');
    expect(blind).toContain('<li>Metrics API: every rule reading it fails (1); c-chain: HTTP 503 &lt;b&gt;</li>');
    expect(blind).toContain('<title>avawatch: blind</title>');
    expect(renderStatusPage(snapshot(calm))).toContain('<p class="good">Nothing is firing.</p>');
  });
});
