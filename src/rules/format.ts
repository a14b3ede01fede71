// Text the kinds share in their alerts.

/** An ISO time for a timestamp the service sent; one outside Date's range is shown as it came. */
export function isoSeconds(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? `${seconds} (not a valid time)` : date.toISOString().replace('.000Z', 'Z');
}
