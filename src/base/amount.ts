/** AVAX as written by a person ("1.5", 25) to nAVAX, exactly: no float ever touches it. */
export function avaxToNavax(value: string | number): bigint {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const match = /^(\d+)(?:\.(\d{1,9}))?$/.exec(text);
  if (!match) throw new Error(`"${text}" is not an AVAX amount (up to 9 decimals)`);
  return BigInt(match[1] as string) * 1_000_000_000n + BigInt((match[2] ?? '').padEnd(9, '0'));
}

/** nAVAX to AVAX text without rounding: 1500000000 → "1.5". */
export function formatAvax(navax: bigint): string {
  const sign = navax < 0n ? '-' : '';
  const abs = navax < 0n ? -navax : navax;
  const whole = abs / 1_000_000_000n;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${sign}${whole}${frac ? `.${frac}` : ''}`;
}

/** For gauges: AVAX as a float (exact to the nAVAX below about 9 million AVAX). */
export function navaxToAvax(navax: bigint): number {
  return Number(navax / 1_000_000_000n) + Number(navax % 1_000_000_000n) / 1e9;
}

/** An amount the service sent as text: nAVAX, or undefined when it is not a whole number. */
export function navax(text: string): bigint | undefined {
  return /^\d+$/.test(text) ? BigInt(text) : undefined;
}

/** "1.5 AVAX" for a service amount in nAVAX; "an unknown amount" when it is not a number. */
export function avaxText(text: string): string {
  const n = navax(text);
  return n === undefined ? 'an unknown amount' : `${formatAvax(n)} AVAX`;
}
