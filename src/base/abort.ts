import { formatDuration } from './duration.js';
import { systemClock } from './clock.js';

/**
 * A signal that aborts when `parent` does or after `timeoutMs`. Unlike AbortSignal.any on
 * Node 20, it leaves nothing attached to a long-lived parent once disposed. The deadline of an
 * exchange with another system: on the host's time, whatever the App's clock runs at (the
 * demo's simulator answers at the host's pace however fast its world goes).
 */
export function linkedSignal(parent: AbortSignal | undefined, timeoutMs?: number) {
  const controller = new AbortController();
  let timedOut = false;
  const cancel =
    timeoutMs === undefined
      ? undefined
      : systemClock.setTimer(() => {
          timedOut = true;
          controller.abort(new DOMException(`no answer within ${formatDuration(timeoutMs)}`, 'TimeoutError'));
        }, timeoutMs);
  const onAbort = (): void => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    abort: () => controller.abort(),
    dispose(): void {
      cancel?.();
      parent?.removeEventListener('abort', onAbort);
    },
  };
}
