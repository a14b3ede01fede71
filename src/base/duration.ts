// Durations as Prometheus writes them: one or more <number><unit>, e.g. 30s, 5m, 1h30m, 14d.
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const PART = /(\d+)(ms|s|m|h|d|w)/g;
const WHOLE = /^(?:\d+(?:ms|s|m|h|d|w))+$/;

/** Milliseconds for a duration string, or undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  if (!WHOLE.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(PART)) {
    total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  }
  return total;
}

export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  let rest = ms;
  for (const unit of ['d', 'h', 'm', 's', 'ms'] as const) {
    const size = UNIT_MS[unit];
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('');
}

/**
 * A measured span for people (mail, chat, terminal, page): whole seconds, and whole minutes
 * from an hour up, so a `for: 2m` held over polls stamped 770 ms apart reads "3m", never
 * "2m59s770ms". Config values and machine fields keep `formatDuration`'s exact milliseconds.
 */
export function humanDuration(ms: number): string {
  const whole = Math.max(0, ms);
  const unit = whole >= 3_600_000 ? 60_000 : 1_000;
  return formatDuration(Math.round(whole / unit) * unit);
}

/**
 * How long something has run or has left, for a sentence: whole minutes (rounded down)
 * from a minute up, whole seconds below one, so 45 s reads "45s", never "0s" or "1m".
 */
export function formatElapsed(ms: number): string {
  const whole = Math.max(0, ms);
  return formatDuration(whole < 60_000 ? Math.floor(whole / 1_000) * 1_000 : Math.floor(whole / 60_000) * 60_000);
}

/** A span of seconds for a sentence, to its two largest units: "31d 4h", "5h 20m", "12m", "45s". */
export function roughSpan(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3_600);
  const m = Math.floor((s % 3_600) / 60);
  if (d > 0) return h > 0 ? `${d}d ${h}h` : `${d}d`;
  if (h > 0) return m > 0 ? `${h}h ${m}m` : `${h}h`;
  if (m > 0) return `${m}m`;
  return `${s}s`;
}
