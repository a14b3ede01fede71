import type { Network } from '../api/data/reader.js';
import { AVAX_ASSET_ID } from '../api/catalog.js';
import type { PeriodInput } from './samples.js';

// The simulated P-Chain API (/ext/bc/P) as AvalancheGo v1.15 answers it
// (vms/platformvm/service.go getPrimaryOrSubnetValidators, vms/platformvm/api/validator.go;
// docs/node-api-source.md): platform.getCurrentValidators over the world's active
// primary-network validations, and platform.getStakingAssetID. An auto-renewed validator
// (ACP-236) crosses its cycle boundaries as the clock passes them
// (vms/platformvm/docs/validators_auto_renewed.md): restaked (capped at MaxValidatorStake, the
// excess paid out), exited (nextPeriod 0), or removed for a cycle under the 90% uptime, that
// cycle's reward forfeited. The service's listing of such a validator is not documented: the
// simulator lists its current cycle, as getCurrentValidators does.

const PRIMARY_SUBNET = '11111111111111111111111111111111LpoYY';
/** genesis MaxValidatorStake (3M AVAX), nAVAX. */
const MAX_STAKE = 3_000_000n * 1_000_000_000n;
const SHARES = 1_000_000n;
/** What a cycle must reach (ACP-267: an auto-renewed validator always starts after Helicon). */
const REQUIRED_UPTIME = 90;
/** One reward owner, as each network's HRP writes it (valid bech32). */
const OWNER: Record<'mainnet' | 'fuji', string> = { mainnet: 'P-avax1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnsn50c44', fuji: 'P-fuji1x5dg7ugldzm6pvm5qx8gq2p6yvyqxcnslxt8e2' };

/** ACP-236's config of one auto-renewed validation, and what its cycle earns. */
export interface AutoRenewInput {
  /** Seconds of the next cycle; 0: it exits at the end of this one. */
  nextPeriod: number;
  /** Millionths of each cycle's reward restaked. */
  compoundShares: number;
  authority: { threshold: number; addresses: string[] };
  /** nAVAX each cycle earns when it is rewarded (potentialReward). */
  reward: bigint;
  /** nAVAX of delegation fees the current cycle earned (accruedDelegateeReward). */
  fees: bigint;
}

/** A validation as the world holds it; an auto-renewed one carries its config. */
export interface StakerEntry {
  network: Network;
  period: PeriodInput;
  status: string;
  autoRenew?: AutoRenewInput | undefined;
}

/**
 * Moves an auto-renewed validation over every boundary `nowS` has passed: its next cycle, or
 * its end (completed, with the reward it earned, none when removed for its uptime).
 */
export function crossBoundaries(e: StakerEntry, nowS: number): void {
  const a = e.autoRenew;
  while (a && e.status === 'active' && e.period.endTimestamp <= nowS) {
    const p = e.period;
    if ((p.uptimePerformance ?? 100) < REQUIRED_UPTIME) {
      e.status = 'completed';
      e.period = { ...p, rewards: { validationRewardAmount: '0', delegationRewardAmount: a.fees.toString() } };
      return;
    }
    if (a.nextPeriod === 0) {
      e.status = 'completed';
      e.period = { ...p, rewards: { validationRewardAmount: a.reward.toString(), delegationRewardAmount: a.fees.toString() } };
      return;
    }
    // Restaked up to the cap; the rest of both rewards is paid out.
    const weight = BigInt(p.amountStaked ?? '2000000000000');
    const wanted = (a.reward * BigInt(a.compoundShares)) / SHARES + (a.fees * BigInt(a.compoundShares)) / SHARES;
    const restaked = wanted < MAX_STAKE - weight ? wanted : MAX_STAKE - weight;
    e.period = { ...p, startTimestamp: p.endTimestamp, endTimestamp: p.endTimestamp + a.nextPeriod, amountStaked: (weight + restaked).toString() };
    a.fees = 0n;
  }
}

/** A JSON-RPC answer as gorilla/rpc json2 writes it. */
export type PChainAnswer = { result: unknown } | { error: { code: number; message: string; data: null } };

/** platform.* over the world's validations of one network; undefined for a method the simulator does not serve. */
export function pchainAnswer(network: Network, method: string, params: Record<string, unknown>, entries: readonly StakerEntry[]): PChainAnswer {
  const net = network === 'mainnet' ? 'mainnet' : 'fuji';
  switch (method) {
    case 'platform.getStakingAssetID':
      return { result: { assetID: AVAX_ASSET_ID[net] } };
    case 'platform.getCurrentValidators': {
      const subnet = typeof params['subnetID'] === 'string' && params['subnetID'] !== '' ? params['subnetID'] : PRIMARY_SUBNET;
      const asked = Array.isArray(params['nodeIDs']) ? params['nodeIDs'].filter((n): n is string => typeof n === 'string') : [];
      const current = entries.filter((e) => e.status === 'active' && (e.period.subnetId ?? PRIMARY_SUBNET) === subnet && (asked.length === 0 || asked.includes(e.period.nodeId)));
      // Delegators are listed only when one NodeID was asked (service.go).
      return { result: { validators: current.map((e) => validatorItem(e, net, asked.length === 1)) } };
    }
    default: {
      const [service = '', fn = ''] = method.split('.', 2);
      const goName = `${service}.${fn.charAt(0).toUpperCase()}${fn.slice(1)}`;
      return { error: { code: -32000, message: service === 'platform' ? `rpc: can't find method "${goName}"` : `rpc: can't find service "${goName}"`, data: null } };
    }
  }
}

/** json.Float32: four decimals, quoted. */
function float32(n: number): string {
  return n.toFixed(4);
}

function owner(net: 'mainnet' | 'fuji'): { locktime: string; threshold: string; addresses: string[] } {
  return { locktime: '0', threshold: '1', addresses: [OWNER[net]] };
}

/** api.PermissionlessValidator, fields in its struct's order; the AutoRenewedConfig inline only for one that renews. */
function validatorItem(e: StakerEntry, net: 'mainnet' | 'fuji', withDelegators: boolean): Record<string, unknown> {
  const p = e.period;
  const a = e.autoRenew;
  return {
    txID: p.txHash,
    startTime: String(p.startTimestamp),
    endTime: String(p.endTimestamp),
    weight: p.amountStaked ?? '2000000000000',
    nodeID: p.nodeId,
    validationRewardOwner: owner(net),
    delegationRewardOwner: owner(net),
    potentialReward: (a?.reward ?? 120_491_336_290n).toString(),
    accruedDelegateeReward: (a?.fees ?? 0n).toString(),
    delegationFee: '2.0000',
    uptime: float32(p.uptimePerformance ?? 99.93),
    connected: true,
    signer: {
      publicKey: '0x8f95423f7142d00a48e1014a3de8d28907d420dc33b3052a6dee03a3f2941a393c2351e354704ca66a3fc29870282e15',
      proofOfPossession:
        '0x86a3ab4c45cfe31cae34c1d06f212434ac71b1be6cfe046c80c162e057614a94a5bc9f1ded1a7029deb0ba4ca7c9b71411e293438691be79c2dbf19d1ca7c3eadb9c756246fc5de5b7b89511c7d7302ae051d9e03d7991138299b5ed6a570a98',
    },
    ...(a
      ? {
          validatorAuthority: { locktime: '0', threshold: String(a.authority.threshold), addresses: a.authority.addresses },
          nextPeriod: String(a.nextPeriod),
          autoCompoundRewardShares: String(a.compoundShares),
        }
      : {}),
    delegatorCount: '0',
    delegatorWeight: '0',
    ...(withDelegators ? { delegators: [] } : {}),
  };
}
