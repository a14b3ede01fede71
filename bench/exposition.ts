import { performance } from 'node:perf_hooks';
import { seriesMatching, seriesOf } from '../src/rules/node-metrics/read.js';
import { ms, type BenchResult } from './lib.js';

const MIB = 1024 * 1024;
const METRIC = 'avalanche_snowman_blks_processing';
const RUNS = 5;
/** What one evaluation may hold the event loop (the fuzzer's invariant). */
const TARGET_MS = 1_000;

/**
 * The node-metrics reader (src/rules/node-metrics/read.ts `seriesOf`) on the shapes of an
 * exposition that cost most, each at the 32 MiB a read takes: the time it holds the event loop.
 */
export function expositionBench(): Promise<BenchResult> {
  const read = (text: string) => seriesOf(text, METRIC);
  // A ~pattern (node-l1-bad-blocks): candidate lines found by its fixed part, then the regex.
  const byPattern = (text: string) => seriesMatching(text, 'avalanche_.+_vm_eth_chain_block_bad_count', '_vm_eth_chain_block_bad_count');
  const cases: Array<[string, string, (text: string) => unknown]> = [
    ['one 32 MiB line naming the metric every 50 bytes', `x${` ${METRIC}{chain="C"} 1`.padEnd(50, ' ').repeat(Math.floor((32 * MIB) / 50))}`],
    ["one 32 MiB line of the metric's own (a label value)", `${METRIC}{chain="${'x'.repeat(32 * MIB - 64)}"} 3\n`],
    ['one 32 MiB label value of escapes', `${METRIC}{chain="${'\\"'.repeat(16 * MIB - 32)}"} 4\n`],
    ['32 MiB of short lines, 1,000 of them the metric', Array.from({ length: 600_000 }, (_, i) => (i % 600 === 0 ? `${METRIC}{chain="c${i}"} 1` : `avalanche_handler_messages{chain="C",op="op_${i}"} ${i}`)).join('\n')],
  ].map(([name, text]) => [name as string, text as string, read]);
  cases.push(
    ['a ~pattern: 120,000 lines holding its fixed part, one a series', Array.from({ length: 60_000 }, (_, i) => `avalanche_n${i}_vm_eth_chain_block_bad_count_other{chain="c${i}"} ${i}\nx{l="_vm_eth_chain_block_bad_count"} 1`).join('\n') + '\navalanche_subnetevm_vm_eth_chain_block_bad_count{chain="L1"} 2\n', byPattern],
    ['a ~pattern: one 32 MiB line full of its fixed part', `x{l="${'_vm_eth_chain_block_bad_count'.repeat(1_100_000)}"} 1\n`, byPattern],
  );
  const figures = cases.map(([name, text, parse]) => {
    const flat = text.slice(0); // as read from a socket: one flat string
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      parse(flat);
      times.push(performance.now() - t);
    }
    const worst = Math.max(...times);
    return { name: `${name} (${(text.length / MIB).toFixed(1)} MiB, worst of ${RUNS})`, value: ms(worst), target: `< ${TARGET_MS} ms`, pass: worst < TARGET_MS };
  });
  return Promise.resolve({
    id: 'exposition',
    title: 'node-metrics exposition reader',
    figures,
    details: [`\`seriesOf(text, "${METRIC}")\` (or \`seriesMatching\` for a ~pattern) on each text, ${RUNS} times; the figure is the slowest, the time one evaluation holds the event loop for one node's read.`],
  });
}
