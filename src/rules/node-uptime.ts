import { z } from 'zod';
import type { NodeApi } from '../api/node-api.js';
import { goNumber } from '../api/node-schemas.js';

// info.uptime (api/info/service.go; no params, primary network only): how the node's peers
// see it. Read by node-health (its rewarding stake) and validator-health (the peers' view of
// the uptime a reward is decided on). test/contract/node.test.ts holds the schema to the source.

export interface NodeUptime {
  /** Percent (0..100) of stake that thinks this node meets the uptime requirement. */
  rewardingStakePercentage: number;
  /** Percent (0..100): the stake-weighted average uptime others observe. */
  weightedAveragePercentage: number;
}

/** A percentage avawatch keeps: finite and within 0..100, or the answer is no reading at all. */
const percent = goNumber.refine((n) => Number.isFinite(n) && n >= 0 && n <= 100, { message: 'expected a percentage within 0..100' });

/** info.uptime: two json.Float64 percentages ("99.1234"). */
export const uptimeReply = z
  .looseObject({ rewardingStakePercentage: percent, weightedAveragePercentage: percent })
  .transform((r) => ({ rewardingStakePercentage: r.rewardingStakePercentage, weightedAveragePercentage: r.weightedAveragePercentage }));

/** The node's info API. */
const INFO = '/ext/info';

/** Throws `rpc` when the node is not a validator ("node is not a validator"); `invalid` for a figure outside 0..100. */
export async function nodeUptime(api: NodeApi, base: string, signal: AbortSignal): Promise<NodeUptime> {
  return api.rpc(base, INFO, 'info.uptime', {}, uptimeReply, signal);
}
