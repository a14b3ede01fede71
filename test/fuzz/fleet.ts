import { NODES } from './world.js';

// The fuzzer's inventory: each node named and on a team, and the team routes to its own
// receiver (a webhook per team) besides the six providers. Reload steps edit it.

export const TEAMS = ['core', 'infra'] as const;
export type Team = (typeof TEAMS)[number];

export interface Member {
  nodeId: string;
  name: string;
  team: Team;
}

/** a and b on core, c and d on infra. */
export function initialFleet(): Member[] {
  return NODES.map((nodeId, i) => ({ nodeId, name: ['alpha', 'beta', 'gamma', 'delta'][i] as string, team: i < 2 ? 'core' : 'infra' }));
}

export function inventoryYaml(fleet: readonly Member[]): string {
  return `validators:\n${fleet.map((m) => `  - {name: ${m.name}, nodeId: ${m.nodeId}, network: mainnet, labels: {team: ${m.team}}}`).join('\n')}\n`;
}

/** The config's routes: each team's alerts to its own receiver too. */
export function teamRoutes(indent: string, everyone: string): string {
  return [
    `${indent}routes:`,
    ...TEAMS.map((t) => `${indent}  - {match: {team: ${t}}, receivers: [team-${t}], continue: true}`),
    `${indent}  - {receivers: [${everyone}]}`,
  ].join('\n');
}

/** The rules file without a node: taken out of every list and map that names it. */
export function withoutNode(yaml: string, node: string): string {
  return yaml
    .replaceAll(new RegExp(`${node}: "[^"]*", `, 'g'), '')
    .replaceAll(new RegExp(`, ${node}: "[^"]*"`, 'g'), '')
    .replaceAll(`${node}, `, '')
    .replaceAll(`, ${node}`, '')
    .replaceAll(`${node},`, '')
    .replaceAll(`,${node}`, '');
}
