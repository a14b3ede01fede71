import { z } from 'zod';
import type { Network } from './fields.js';
import { isoSeconds } from './format.js';

// The network's rules, built in from AvalancheGo's source (docs/network-rules.md): never left
// to the operator to type. Upgrade times from upgrade/upgrade.go (Mainnet Helicon from the
// v1.15.0 release; the v1.15.0-fuji tag schedules Fuji's), the uptime rule from
// vms/platformvm/block/executor/options.go (prefersCommit) and genesis/params.go
// (ACP267UptimeRequirement), durations and stake limits from genesis/genesis_mainnet.go and
// genesis_fuji.go. An override per network (`networks.<network>.upgrades` in the config, or a
// rule's `upgrades:`) is for a schedule avawatch does not know yet, or a local network.

export const UPGRADES = ['durango', 'etna', 'fortuna', 'granite', 'helicon'] as const;
export type Upgrade = (typeof UPGRADES)[number];

const NAMES: Record<Upgrade, string> = { durango: 'Durango', etna: 'Etna', fortuna: 'Fortuna', granite: 'Granite', helicon: 'Helicon' };

const at = (iso: string): number => Date.parse(iso) / 1000;

/** Activation times, unix seconds (upgrade/upgrade.go's Mainnet and Fuji configs). */
const SCHEDULE: Record<'mainnet' | 'fuji', Record<Upgrade, number>> = {
  mainnet: {
    durango: at('2024-03-06T16:00:00Z'),
    etna: at('2024-12-16T17:00:00Z'),
    fortuna: at('2025-04-08T15:00:00Z'),
    granite: at('2025-11-19T16:00:00Z'),
    helicon: at('2026-09-22T15:00:00Z'),
  },
  fuji: {
    durango: at('2024-02-13T16:00:00Z'),
    etna: at('2024-11-25T16:00:00Z'),
    fortuna: at('2025-03-13T15:00:00Z'),
    granite: at('2025-10-29T15:00:00Z'),
    helicon: at('2026-07-28T15:00:00Z'),
  },
};

/** AvalancheGo's UnscheduledActivationTime (9999-12-01): what a node reports for an upgrade not scheduled. */
export const UNSCHEDULED_S = at('9999-12-01T00:00:00Z');

/** An ISO 8601 time with its zone, e.g. 2027-03-01T00:00:00Z. */
export const isoTime = z
  .string()
  .refine((t) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(t) && !Number.isNaN(Date.parse(t)), 'expected a time such as 2027-03-01T00:00:00Z');

/** Upgrade times that replace the built-in ones, e.g. { helicon: 2026-09-22T15:00:00Z }. */
export const upgradeTimes = z.strictObject(Object.fromEntries(UPGRADES.map((u) => [u, isoTime.optional()])) as Record<Upgrade, z.ZodOptional<typeof isoTime>>);
export type UpgradeTimes = z.output<typeof upgradeTimes>;

function canonical(network: Network): 'mainnet' | 'fuji' {
  return network === 'mainnet' ? 'mainnet' : 'fuji';
}

/** When an upgrade activated (or activates) on a network, unix seconds, and where that comes from. */
export function activation(network: Network, upgrade: Upgrade, overrides?: UpgradeTimes): { at: number; source: 'built in' | 'override' } {
  const given = overrides?.[upgrade];
  if (given !== undefined) return { at: Date.parse(given) / 1000, source: 'override' };
  return { at: SCHEDULE[canonical(network)][upgrade], source: 'built in' };
}

export function upgradeName(upgrade: Upgrade): string {
  return NAMES[upgrade];
}

/** The first upgrade of the built-in (or overridden) schedule still ahead of `nowS`, if any. */
export function nextUpgrade(network: Network, nowS: number, overrides?: UpgradeTimes): { upgrade: Upgrade; at: number } | undefined {
  for (const upgrade of UPGRADES) {
    const a = activation(network, upgrade, overrides).at;
    if (a > nowS && a < UNSCHEDULED_S) return { upgrade, at: a };
  }
  return undefined;
}

/** Whether an upgrade is in force at `atS` (AvalancheGo's !t.Before(activation)). */
export function activeAt(network: Network, upgrade: Upgrade, atS: number, overrides?: UpgradeTimes): boolean {
  return atS >= activation(network, upgrade, overrides).at;
}

/** genesis UptimeRequirement (0.8), as a percent. */
export const UPTIME_REQUIREMENT = 80;
/** ACP-267: a primary-network validation that starts at or after Helicon needs 0.9. */
export const HELICON_UPTIME_REQUIREMENT = 90;

export interface Requirement {
  /** Percent of the judged period the node must be up for its reward. */
  percent: number;
  /** Why, in words: which upgrade's rule and when it activated. */
  why: string;
}

/**
 * The uptime a primary-network validation needs for its reward, by its start and network:
 * 90% from Helicon on (ACP-267, compared `uptime >= 0.9`), else 80%. An auto-renewed
 * validator's cycle starts after Helicon by construction, so 90% always applies to it.
 */
export function uptimeRequirement(network: Network, startS: number, overrides?: UpgradeTimes): Requirement {
  const helicon = activation(network, 'helicon', overrides);
  const when = `${isoSeconds(helicon.at)} on ${canonical(network)}${helicon.source === 'override' ? ', overridden' : ''}`;
  if (startS >= helicon.at) return { percent: HELICON_UPTIME_REQUIREMENT, why: `ACP-267: the validation started at or after Helicon (${when})` };
  return { percent: UPTIME_REQUIREMENT, why: `the validation started before Helicon (${when})` };
}

const HOUR = 3_600;
const DAY = 86_400;

/** genesis MinStakeDuration (validators before Helicon, and delegators always) and HeliconMinStakeDuration (ACP-273), seconds. */
const DURATIONS: Record<'mainnet' | 'fuji', { minStake: number; heliconMinStake: number; maxStake: number }> = {
  mainnet: { minStake: 14 * DAY, heliconMinStake: 48 * HOUR, maxStake: 365 * DAY },
  fuji: { minStake: 24 * HOUR, heliconMinStake: 12 * HOUR, maxStake: 365 * DAY },
};

/** The shortest validation a primary-network validator may register at `atS` (48 h on Mainnet since Helicon). */
export function minValidationS(network: Network, atS: number, overrides?: UpgradeTimes): number {
  const d = DURATIONS[canonical(network)];
  return activeAt(network, 'helicon', atS, overrides) ? d.heliconMinStake : d.minStake;
}

/** The shortest delegation (14 days on Mainnet; ACP-273 left delegators' minimum alone). */
export function minDelegationS(network: Network): number {
  return DURATIONS[canonical(network)].minStake;
}

/** genesis MaxValidatorStake: 3,000,000 AVAX on Mainnet and Fuji, in nAVAX. Restaking at a cycle boundary is capped here. */
export const MAX_VALIDATOR_STAKE_NAVAX = 3_000_000n * 1_000_000_000n;

/** reward.PercentDenominator: shares (autoCompoundRewardShares, delegation shares) are millionths. */
export const SHARE_DENOMINATOR = 1_000_000;

/**
 * The first AvalancheGo release that schedules each upgrade (RELEASES.md: "This release
 * schedules the activation of …"; Fuji got each as a `-fuji` pre-release of the same version
 * first, e.g. v1.15.0-fuji for Helicon). A node older than it does not know the upgrade;
 * node-upgrade reads the release's RPCChainVM protocol from compatibility.json.
 */
const FIRST_RELEASE: Record<Upgrade, string> = { durango: '1.11.0', etna: '1.12.0', fortuna: '1.13.0', granite: '1.14.0', helicon: '1.15.0' };

/** The first release that schedules `upgrade` (on Fuji as its `-fuji` pre-release), e.g. 1.15.0 for Helicon. */
export function firstRelease(upgrade: Upgrade): string {
  return FIRST_RELEASE[upgrade];
}
