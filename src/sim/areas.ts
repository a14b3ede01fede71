import type { Route, SimArea } from './http.js';
import { dataArea } from './routes-data.js';
import { evmArea } from './routes-evm.js';
import { longTailArea } from './routes-longtail.js';
import { metricsArea } from './routes-metrics.js';
import { pchainArea } from './routes-pchain.js';

// The simulator's areas, one line each, in the order their routes are tried (the data
// area's catch-all for the EVM lists avawatch does not read comes after the EVM area).
// The nodes' own APIs (/node/{NodeID}/ext/…) are apart: routes-node.ts, no compute units.
export const SIM_AREAS: readonly SimArea[] = [pchainArea, evmArea, longTailArea, dataArea, metricsArea];

export const SIM_ROUTES: readonly Route[] = SIM_AREAS.flatMap((a) => a.routes);
