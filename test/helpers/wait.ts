/** Polls until check() gives a truthy value (awaiting it); fails naming what it waited for. */
export type Wait = <T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs?: number) => Promise<T>;

/** A Wait on real time. */
export async function waitUntil<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    // real wait: the real-time poll itself (each caller counts too, test/waits.test.ts).
    await new Promise((r) => setTimeout(r, 20));
  }
}
