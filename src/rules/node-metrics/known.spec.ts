import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { unknownMetric } from './known.js';

const NODE = { 'NodeID-x': 'http://127.0.0.1:9650' };
const RULES = join(import.meta.dirname, '../../../rules');

describe('unknownMetric (avawatch check)', () => {
  it('knows every metric the shipped rules watch', () => {
    const metrics: string[] = [];
    for (const file of readdirSync(RULES).filter((f) => f.endsWith('.yaml'))) {
      const doc = parse(readFileSync(join(RULES, file), 'utf8')) as { rules?: Array<{ kind?: string; metric?: string; ratioWith?: string; minus?: string; until?: string; when?: { metric: string } }> } | null;
      for (const r of doc?.rules ?? []) {
        if (r.kind !== 'node-metrics') continue;
        for (const m of [r.metric, r.ratioWith, r.minus, r.until, r.when?.metric]) if (m !== undefined && !m.startsWith('~')) metrics.push(m);
      }
    }
    expect(metrics.length).toBeGreaterThan(5);
    expect(metrics).toContain('avalanche_evm_transition_sae_last_settled_height');
    expect(metrics.filter((m) => unknownMetric(m, NODE) !== undefined)).toEqual([]);
  });

  it('names a typo, a name outside AvalancheGo, and a namespace it does not register', () => {
    expect(unknownMetric('avalanche_snowman_blks_procesing', NODE)).toBe('avalanche_snowman_blks_procesing: no AvalancheGo 1.14 or 1.15 exports it (did you mean avalanche_snowman_blks_processing?)');
    expect(unknownMetric('node_load1', NODE)).toBe('node_load1 is not a name AvalancheGo exports (its names start with avalanche_)');
    expect(unknownMetric('avalanche_snowmen_blks_processing', NODE)).toMatch(/^avalanche_snowmen_blks_processing: no AvalancheGo 1.14 or 1.15 registers its namespace/);
    // SAE's names (the C-Chain after Helicon) are known, under the EVM's open namespace.
    expect(unknownMetric('avalanche_evm_transition_sae_execution_queue_blocks', NODE)).toBeUndefined();
    expect(unknownMetric('avalanche_evm_transition_cchain_min_block_delay_seconds', NODE)).toBeUndefined();
    expect(unknownMetric('avalanche_evm_transition_sae_execution_queue_block', NODE)).toBe(
      'avalanche_evm_transition_sae_execution_queue_block: no AvalancheGo 1.14 or 1.15 exports it (did you mean avalanche_evm_transition_sae_execution_queue_blocks?)',
    );
  });

  it("takes histograms' series, the VMs' own metrics, and any name read from another exporter", () => {
    expect(unknownMetric('avalanche_snowman_blks_accepted_count', NODE)).toBeUndefined();
    expect(unknownMetric('avalanche_evm_eth_chain_block_bad_count', NODE)).toBeUndefined();
    expect(unknownMetric('avalanche_2DeHa7Qb6sufPkmQcFWG2uCd4pBPv9WB6dkzroiMQhd1NSRtof_vm_x', NODE)).toBeUndefined();
    expect(unknownMetric('node_load1', { x: 'http://127.0.0.1:9100/metrics' })).toBeUndefined();
    expect(unknownMetric('node_load1', { x: 'http://127.0.0.1:9650/ext/metrics' })).toBeDefined();
  });

  it('a name far from every known one is said without a guess; the longest namespace is the one read', () => {
    expect(unknownMetric('avalanche_snowman_zzzzzzzzzzzzzzzz', NODE)).toBe('avalanche_snowman_zzzzzzzzzzzzzzzz: no AvalancheGo 1.14 or 1.15 exports it');
    // evm_transition_sae_ is a namespace of its own (its names known), not evm's open one.
    expect(unknownMetric('avalanche_evm_transition_sae_zzzzzzzzzzzzzzzz', NODE)).toBe('avalanche_evm_transition_sae_zzzzzzzzzzzzzzzz: no AvalancheGo 1.14 or 1.15 exports it');
    expect(unknownMetric('avalanche_evm_anything_at_all', NODE)).toBeUndefined();
    expect(unknownMetric('avalanche_snowman', NODE)).toMatch(/registers its namespace/);
    expect(unknownMetric('avalanche_snowmen_x', NODE)).toBe(
      'avalanche_snowmen_x: no AvalancheGo 1.14 or 1.15 registers its namespace (avalanche_<namespace>_: api, avalanche, benchlist, evm_transition_cchain, evm_transition_sae, handler, health, meterchainvm, meterdagvm, network, p2p, proposervm, requests, resource_tracker, responses, snowman, stake, system_resources, upgrade, platformvm, avm, evm, subnetevm, xsvm, process, db, meterdb, rpcchainvm)',
    );
    // A suffix only at the end: blks_sum_accepted is no histogram of blks_accepted.
    expect(unknownMetric('avalanche_snowman_blks_sum_accepted', NODE)).toMatch(/no AvalancheGo 1.14 or 1.15 exports it/);
    // A VM ID only as the namespace itself.
    expect(unknownMetric(`avalanche_snowman_avalanche_${'2'.repeat(40)}_x`, NODE)).toMatch(/no AvalancheGo 1.14 or 1.15 exports it/);

    expect(unknownMetric('avalanche_snowman_blks_accepted_sum', NODE)).toBeUndefined();
    expect(unknownMetric('avalanche_snowman_blks_accepted_bucket', NODE)).toBeUndefined();
    expect(unknownMetric('avalanche_snowman_blks_accepted_total', NODE)).toMatch(/no AvalancheGo 1.14 or 1.15 exports it/);
    expect(unknownMetric('avalanche_snowman_blks_accepted_count_x', NODE)).toMatch(/no AvalancheGo 1.14 or 1.15 exports it/);
  });

  it("a VM's own namespace is its ID of 40 or more base58 characters; a node's API base or /ext/metrics is looked up, an exporter's /metrics or a URL that is none is not", () => {
    expect(unknownMetric(`avalanche_${'2'.repeat(40)}_x`, NODE)).toBeUndefined();
    expect(unknownMetric(`avalanche_${'2'.repeat(39)}_x`, NODE)).toMatch(/registers its namespace/);
    expect(unknownMetric(`avalanche_${'0'.repeat(40)}_x`, NODE)).toMatch(/registers its namespace/);
    expect(unknownMetric(`xavalanche_${'2'.repeat(40)}_x`, NODE)).toBeDefined();
    expect(unknownMetric('node_load1', { a: 'http://127.0.0.1:9650/prefix' })).toBeDefined();
    expect(unknownMetric('node_load1', { a: 'http://127.0.0.1:9100/metrics', b: 'http://127.0.0.1:9650' })).toBeDefined();
    expect(unknownMetric('node_load1', { a: 'not a url' })).toBeUndefined();
    expect(unknownMetric('node_load1', { a: 'http://127.0.0.1:9100/metrics/x' })).toBeDefined();
    expect(unknownMetric('node_load1', { a: 'http://127.0.0.1:9100/ext/metrics/x/metrics' })).toBeUndefined();
  });
});
