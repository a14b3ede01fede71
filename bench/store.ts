import { PgStore } from '../src/store/postgres/store.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { measure, type OpenBenchStore, type SizeResult } from './evaluate.js';
import { median, ms, type BenchResult, type Figure } from './lib.js';

/**
 * Evaluate + commit of one rule over N entities on each store: the same engine cycles as the
 * evaluate benchmark (evaluate.ts), with SQLite on a temp file beside PostgreSQL on a cluster
 * of its own on loopback (test/helpers/postgres.ts: fsync off, synchronous_commit on).
 */
export async function storeBench(n = 100_000): Promise<BenchResult> {
  const postgres = await startPostgres();
  let results: Array<{ name: string; r: SizeResult }>;
  try {
    let db = 0;
    const onPostgres: OpenBenchStore = async () => {
      const store = await PgStore.open(await postgres.database(`bench_${++db}`));
      return { store, bytes: async () => 0 };
    };
    results = [
      { name: 'SQLite', r: await measure('validator-status', n) },
      { name: 'PostgreSQL', r: await measure('validator-status', n, onPostgres) },
    ];
  } finally {
    await postgres.stop();
  }
  const label = n.toLocaleString('en-US');
  const figures: Figure[] = results.flatMap(({ name, r }) => [
    { name: `${name}: evaluate + commit, ${label} entities, first cycle (every state written)`, value: ms(r.baseline.total, 0) },
    { name: `${name}: evaluate + commit, ${label} entities, nothing changes (median of ${r.steady.length})`, value: ms(median(r.steady.map((c) => c.total)), 0) },
    { name: `${name}: evaluate + commit, ${label} entities, 1% change`, value: ms(r.changed.total, 0) },
  ]);
  return {
    id: 'store',
    title: `The two stores side by side: evaluate + commit of ${label} entities`,
    figures,
    details: [
      'One validator-status rule over N nodes, `Engine.evaluate` as in the evaluate benchmark (an in-process fake of the data service, the real pipeline to one Slack receiver), once with `SqliteStore` on a temp file and once with `PgStore` on a PostgreSQL of its own on loopback (Debian\'s, started by test/helpers/postgres.ts: fsync off, synchronous_commit on, one connection pool of 4). *commit* is `commitEvaluation` until its promise settles; *load* the states and state alerts read back. On PostgreSQL, a store instances share, a rule of 100,000 nodes is spread by entity (docs/design/entity-spread.md): one instance holding every shard reads its 256 parts (`stateRowsOf`, then only `revisionsOf` while they stand) and commits them in one `commitParts`.',
      '',
      '| store, cycle | total | load | commit |',
      '|---|---|---|---|',
      ...results.flatMap(({ name, r }) => [
        `| ${name}, first | ${ms(r.baseline.total, 0)} | ${ms(r.baseline.load, 0)} | ${ms(r.baseline.commit, 0)} |`,
        `| ${name}, steady (median) | ${ms(median(r.steady.map((c) => c.total)), 0)} | ${ms(median(r.steady.map((c) => c.load)), 0)} | ${ms(median(r.steady.map((c) => c.commit)), 0)} |`,
        `| ${name}, 1% change | ${ms(r.changed.total, 0)} | ${ms(r.changed.load, 0)} | ${ms(r.changed.commit, 0)} |`,
      ]),
    ],
  };
}
