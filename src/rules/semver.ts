// AvalancheGo versions as nodes report them ("avalanche/1.14.1", "avalanchego/1.13.2",
// "1.14.0-rc.3", "go1.22.8 avalanche/1.13.0"), ordered as semantic versions: a pre-release is
// older than its release.

/** major.minor.patch and an optional pre-release (build metadata after `+` is ignored). */
export const SEMVER = /(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?/;

export interface Version {
  core: [number, number, number];
  /** Pre-release identifiers (`rc.3` → ["rc", "3"]); empty for a release. */
  pre: string[];
}

const SOURCE = SEMVER.source;
/** The version after `avalanche/` or `avalanchego/`, wherever it is in the text. */
const AVALANCHE = new RegExp(`avalanche(?:go)?/v?${SOURCE}`, 'i');
/** Otherwise a version that starts a word: not the Go toolchain's `go1.22.8`, not part of a longer number. */
const BARE = new RegExp(`(?<![0-9A-Za-z.])v?${SOURCE}`);

/** The AvalancheGo version in a text, or undefined when it holds none. */
export function parseVersion(text: string | undefined): Version | undefined {
  const m = text === undefined ? null : (AVALANCHE.exec(text) ?? BARE.exec(text));
  if (!m) return undefined;
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] === undefined ? [] : m[4].split('.') };
}

export function versionText(v: Version): string {
  return `${v.core.join('.')}${v.pre.length > 0 ? `-${v.pre.join('.')}` : ''}`;
}

/** Semver precedence: a < b. */
export function older(a: Version, b: Version): boolean {
  for (let i = 0; i < 3; i++) if (a.core[i] !== b.core[i]) return (a.core[i] as number) < (b.core[i] as number);
  // A release outranks any of its pre-releases.
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length > 0 && b.pre.length === 0;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const c = comparePart(a.pre[i] as string, b.pre[i] as string);
    if (c !== 0) return c < 0;
  }
  return a.pre.length < b.pre.length;
}

/** Numeric identifiers compare as numbers and rank below alphanumeric ones. */
function comparePart(a: string, b: string): number {
  const [na, nb] = [/^\d+$/.test(a), /^\d+$/.test(b)];
  if (na && nb) return Number(a) - Number(b);
  if (na !== nb) return na ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * What a node older than `minVersion` says (validator-health reads the service's view of it,
 * node-health the node's own): undefined when it is not older, or either version is unknown.
 */
export function versionTooOld(node: string, reported: string | undefined, minVersion: string | undefined): { summary: string; resolvedSummary: string; details: Record<string, string> } | undefined {
  const version = parseVersion(reported);
  const minimum = parseVersion(minVersion);
  if (!version || !minimum || !older(version, minimum)) return undefined;
  return {
    summary: `${node} runs AvalancheGo ${versionText(version)}, older than the required ${versionText(minimum)}: upgrade it`,
    resolvedSummary: `${node} runs AvalancheGo ${versionText(minimum)} or newer now`,
    details: { Version: reported ?? 'unknown', Required: `≥ ${versionText(minimum)}` },
  };
}
