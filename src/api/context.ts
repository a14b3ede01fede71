import { AsyncLocalStorage } from 'node:async_hooks';
import type { Severity } from '../base/types.js';

/** Who is asking: set around a rule's observation, read by the HTTP client below it. */
export interface RequestContext {
  /** Lower severities wait first when the compute-unit budget runs short. */
  severity: Severity;
  /** A response this young, fetched for another rule, answers this rule too. */
  maxAgeMs: number;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();
