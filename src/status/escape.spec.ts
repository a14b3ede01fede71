import { describe, expect, it } from 'vitest';
import { escapeHtml, html } from './escape.js';

describe('escapeHtml', () => {
  it('turns markup into text', () => {
    expect(escapeHtml('<script>alert(1)</script>')).toBe('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(escapeHtml('<img src=x onerror=alert(1)>')).toBe('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('escapes both quotes, so a value cannot leave a quoted attribute', () => {
    expect(escapeHtml(`"onmouseover="x' '`)).toBe('&quot;onmouseover=&quot;x&#39; &#39;');
  });

  it('escapes & first and once: an entity in the text shows as written', () => {
    expect(escapeHtml('AT&T &amp; &lt;')).toBe('AT&amp;T &amp;amp; &amp;lt;');
  });

  it('keeps CR and LF (white space in HTML: they end no tag, start no header) and replaces other control characters', () => {
    expect(escapeHtml('line\r\n<b>two</b>')).toBe('line\r\n&lt;b&gt;two&lt;/b&gt;');
    expect(escapeHtml('a\u0000b\u001bc\u007f')).toBe('a\ufffdb\ufffdc\ufffd');
  });

  it('leaves other text alone', () => {
    expect(escapeHtml('NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg 1.5 AVAX → 3d ✓')).toBe('NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg 1.5 AVAX → 3d ✓');
  });
});

describe('html``', () => {
  it('escapes what it interpolates and keeps its own markup', () => {
    const name = '<b onclick="x">&</b>';
    expect(html`<td title="${name}">${name}</td>`.text).toBe('<td title="&lt;b onclick=&quot;x&quot;&gt;&amp;&lt;/b&gt;">&lt;b onclick=&quot;x&quot;&gt;&amp;&lt;/b&gt;</td>');
  });

  it('nests, joins arrays, writes numbers and leaves undefined out', () => {
    const rows = ['<a>', 'b'].map((t) => html`<li>${t}</li>`);
    expect(html`<ul>${rows}</ul>${undefined}${42}`.text).toBe('<ul><li>&lt;a&gt;</li><li>b</li></ul>42');
  });
});
