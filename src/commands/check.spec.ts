import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config/load.js';
import { writeProject, type TempProject } from '../../test/helpers/harness.js';
import { testNodeId } from '../../test/helpers/node-ids.js';
import { checkCommand } from './check.js';

// `avawatch check` on a shared store says which rules are spread by entity over the daemons:
// what each daemon then spends is its share of their calls, not the whole rule's.

const projects: TempProject[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const p of projects.splice(0)) p.cleanup();
});

function checked(shared: boolean): string[] {
  const nodes = (n: number, seed: string) => Array.from({ length: n }, (_, i) => testNodeId(`${seed}-${i}`));
  const rule = (name: string, ids: string[]) => `  - {name: ${name}, kind: validator-status, every: 5m, severity: info, network: mainnet, nodeIds: [${ids.join(', ')}]}`;
  const p = writeProject({ dataUrl: 'http://127.0.0.1:1', webhookUrl: 'http://127.0.0.1:1/hook', nodeIds: [], rules: { 'r.yaml': `rules:\n${rule('fleet', nodes(150, 'fleet'))}\n${rule('few', nodes(3, 'few'))}\n` } });
  projects.push(p);
  if (shared) writeFileSync(p.configFile, readFileSync(p.configFile, 'utf8').replace(/^state:\n {2}path: .*$/m, (block) => `${block}\n  url: postgres://avawatch@127.0.0.1:1/avawatch`));
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
  const loaded = loadConfig(p.configFile, {});
  checkCommand(loaded, loaded, undefined);
  return lines;
}

describe('avawatch check on a shared store', () => {
  it('names the rules spread by entity over the daemons (past one page of the bulk list), not the ones kept whole', () => {
    expect(checked(true).filter((l) => l.includes('spread by entity'))).toEqual([
      "  shared state: spread by entity over the daemons: fleet; each daemon holding some of a rule's entities makes its own share of its calls, up to one call a poll more per daemon",
    ]);
  });

  it('says nothing of it on one machine (SQLite)', () => {
    expect(checked(false).filter((l) => l.includes('spread by entity'))).toEqual([]);
  });
});
