import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_ROWS, renderStatusPage, STATUS_PAGE_CSP } from './page.js';
import type { StatusSnapshot } from './snapshot.js';

const HOSTILE = `<script>alert("x")</script>'&\r\n<img src=x onerror=alert(1)>`;
const NOW = new Date('2026-03-02T12:00:00Z');
const nowS = NOW.getTime() / 1000;

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
    validators: [{ network: 'mainnet', nodeId: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', status: HOSTILE, end: nowS + 2 * 86_400, uptimePercent: 98.456, rules: ['validation-ending'] }],
    l1Validators: [{ network: 'mainnet', subnetId: 's1', validationId: HOSTILE, nodeId: 'NodeID-x', balanceAvax: 1.5, runwaySeconds: 3 * 86_400 + 3600, rules: ['l1-balance'] }],
    outbox: { pending: 3, dead: 1 },
    budgets: [{ api: 'data', perMinute: 6000, remainingMinute: 5960, perDay: 1_200_000, remainingDay: 1_199_000, spentSinceStart: 1000 }],
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
    // Every hostile value: subject, summary, detail key and value, last error, status, validation id.
    expect(page.split('&lt;script&gt;').length - 1).toBe(7);
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

  it('says when nothing fires, and why it is not ready', () => {
    const page = renderStatusPage(snapshot({ alerts: [], validators: [], l1Validators: [], ready: { ready: false, problems: ['rule <x>: 3 evaluations failed in a row'] } }));
    expect(page).toContain('<title>avawatch: nothing firing</title>');
    expect(page).toContain('Nothing is firing.');
    expect(page).toContain('<span class="bad">not ready</span>');
    expect(page).toContain('<li>rule &lt;x&gt;: 3 evaluations failed in a row</li>');
    expect(page).not.toContain('Watched validators');
    expect(page).not.toContain('L1 validators');
  });

  it('shows a validation end the contract allows but a date cannot hold (1e13, 1e308 seconds) as the number it is', () => {
    const base = snapshot();
    const node = base.validators[0] as StatusSnapshot['validators'][number];
    const validators = [1e13, 1e308, -1e308].map((end, i) => ({ ...node, nodeId: `NodeID-${i}`, end }));
    const page = renderStatusPage({ ...base, validators });
    expect(page).toContain('<td data-label="Validation ends">10000000000000 <span class="muted">(not a valid time)</span></td>');
    expect(page).toContain('<td data-label="Validation ends">1e+308 <span class="muted">(not a valid time)</span></td>');
    expect(page).toContain('<td data-label="Validation ends">-1e+308 <span class="muted">(not a valid time)</span></td>');
    expect(page).toContain('Watched validators (3)');
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
    expect(page.match(/data-label="Node" class="id">NodeID-\d+</g)).toHaveLength(MAX_ROWS);
    expect(page).toContain('<p class="muted">and 9,800 more, not shown (/metrics has every one).</p>');
    expect(page).toContain('Watched validators (10,000)');
  });
});
