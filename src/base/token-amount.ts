// Token amounts with any number of decimals (AVAX on the C-chain has 18, USDC 6), as bigint
// base units: exact, no float ever touches them. src/base/amount.ts is the nAVAX (9 decimals) one.

/** The most decimals a token may declare and still be shown in token units (uint256 has 78 digits). */
export const MAX_DECIMALS = 77;

/** A decimal amount in token units ("1.5", 25), as a person writes it in a rule or scenario. */
export const TOKEN_AMOUNT = /^\d+(?:\.\d+)?$/;

/** "1.5" at 18 decimals → 1500000000000000000n; more digits than `decimals` after the point: an error. */
export function parseUnits(text: string, decimals: number): bigint {
  const [whole, frac = ''] = splitAmount(text);
  if (frac.replace(/0+$/, '').length > decimals) throw new Error(`"${text}" has more than ${decimals} decimals`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.slice(0, decimals).padEnd(decimals, '0') || '0');
}

/**
 * The least base-unit amount that is at least `text` token units: 0.0000001 at 6 decimals
 * is 1. A value ≥ this is ≥ the amount written, exactly.
 */
export function ceilUnits(text: string, decimals: number): bigint {
  const [whole, frac = ''] = splitAmount(text);
  const kept = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.slice(0, decimals).padEnd(decimals, '0') || '0');
  return /[1-9]/.test(frac.slice(decimals)) ? kept + 1n : kept;
}

/** Base units as token units without rounding: 1500000n at 6 decimals → "1.5". */
export function formatUnits(units: bigint, decimals: number): string {
  const sign = units < 0n ? '-' : '';
  const abs = units < 0n ? -units : units;
  if (decimals === 0) return `${sign}${abs}`;
  const base = 10n ** BigInt(decimals);
  const frac = (abs % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${sign}${abs / base}${frac ? `.${frac}` : ''}`;
}

/** Decimals a token declared that token units can be shown with; anything else (hostile contracts) is not. */
export function usableDecimals(decimals: number | undefined): decimals is number {
  return decimals !== undefined && Number.isInteger(decimals) && decimals >= 0 && decimals <= MAX_DECIMALS;
}

function splitAmount(text: string): [string, string | undefined] {
  const t = text.trim();
  if (!TOKEN_AMOUNT.test(t)) throw new Error(`"${text}" is not an amount: digits, optionally a point and more digits`);
  const [whole, frac] = t.split('.');
  return [whole as string, frac];
}
