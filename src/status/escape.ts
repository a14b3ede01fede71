const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text for HTML element content and quoted attribute values: the five characters that
 * could start markup or end an attribute become entities. Every value the page shows goes
 * through this, chain text (token names, statuses the service made up) above all. Control
 * characters other than tab, CR and LF (which are only white space in HTML) would be parse
 * errors, and show as U+FFFD.
 */
export function escapeHtml(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] as string).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '\ufffd');
}

/** Markup made by the page itself: `html` inserts it as it is. */
export class SafeHtml {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

type Value = SafeHtml | string | number | undefined | readonly Value[];

/**
 * A tagged template for the page: every interpolated string or number is escaped, arrays
 * are joined, undefined is nothing, and only SafeHtml (what `html` returns) goes in as it is.
 * So no value reaches the page unescaped by forgetting a call.
 */
export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0] as string;
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] as string);
  });
  return new SafeHtml(out);
}

function render(v: Value): string {
  if (v instanceof SafeHtml) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === undefined) return '';
  return escapeHtml(String(v));
}
