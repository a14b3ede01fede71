import type { LoadedConfig } from '../config/load.js';
import type { Logger } from '../base/log.js';

/** The config's warnings; `sends`: the command delivers, so those about receivers concern it. */
export function logWarnings(log: Logger, loaded: LoadedConfig, sends: boolean): void {
  const unused = new Set(sends ? [] : (loaded.deliveryWarnings ?? []));
  for (const warning of loaded.warnings) if (!unused.has(warning)) log.warn(warning);
}
