import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// `avawatch check` prices the network baseline: what its sweep costs a day, and what it assumes.

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../dist/cli.js');
const EXAMPLE = join(import.meta.dirname, '../../rules/network-baseline.yaml');

describe('avawatch check: the network baseline', () => {
  it('prices the shipped sweep (Mainnet, every 10 m) and one that expects 2,000 validators', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'avawatch-baseline-'));
    try {
      // The shipped rule sweeps the networks of the inventory's validators: one on Mainnet.
      writeFileSync(
        join(dir, 'avawatch.yaml'),
        [
          'validators:',
          '  - { name: alpha, nodeId: NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg, labels: { host: h1, region: eu } }',
          '  - { name: beta, nodeId: NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ, labels: { host: h1, region: us } }',
          `ruleFiles: [${JSON.stringify(EXAMPLE)}, big.yaml]`,
          '',
        ].join('\n'),
      );
      writeFileSync(join(dir, 'big.yaml'), 'rules:\n  - { name: fuji-baseline, kind: network-baseline, every: 10m, severity: warning, network: fuji, expectValidators: 2000 }\n');
      const { stdout } = await run(process.execPath, [CLI, '-c', join(dir, 'avawatch.yaml'), 'check'], { cwd: dir, env: { PATH: process.env['PATH'] ?? '', HOME: dir } });
      expect(stdout).toContain('network-baseline  network-baseline  every 10m  info  mainnet, the whole active validator set (about 1,500: 15 page(s), 300 CU a sweep; at most 60 pages)');
      expect(stdout).toContain('  network-baseline  43,200/day (priced for 1,500 active validators (`expectValidators`): one more page (20 CU) per further 100)\n');
      expect(stdout).toContain('  fuji-baseline  57,600/day (priced for 2,000 active validators');
      expect(stdout).toContain('per day 100,800 of 1,200,000 (8%)');
      // How the inventory groups them: a host shared by two is a group; a region on one only is none.
      expect(stdout).toContain('incidents: 1 group(s): host=h1 (2); k 3 within 10m; network-wide from the baseline; an alert that may join waits 60s\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
