import { formatDuration } from './duration.js';
import { setTimer } from './timers.js';

/**
 * A signal that aborts when `parent` does or after `timeoutMs`. Unlike AbortSignal.any on
 * Node 20, it leaves nothing attached to a long-lived parent once disposed.
 */
export function linkedSignal(parent: AbortSignal | undefined, timeoutMs?: number) {
  const controller = new AbortController();
  let timedOut = false;
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimer(() => {
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
      if (timer) clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
    },
  };
}
