import { formatDuration } from './duration.js';
import type { Timers } from './timers.js';

/**
 * A signal that aborts when `parent` does or after `timeout.ms` on `timeout.clock`. Unlike
 * AbortSignal.any on Node 20, it leaves nothing attached to a long-lived parent once disposed.
 */
export function linkedSignal(parent: AbortSignal | undefined, timeout?: { ms: number; clock: Pick<Timers, 'setTimer'> }) {
  const controller = new AbortController();
  let timedOut = false;
  const cancel = timeout?.clock.setTimer(() => {
    timedOut = true;
    controller.abort(new DOMException(`no answer within ${formatDuration(timeout.ms)}`, 'TimeoutError'));
  }, timeout.ms);
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
