#!/usr/bin/env node
// Mutation testing of the alert path (docs/testing.md "Mutation testing"): StrykerJS, one
// group at a time, each file judged by the tests a developer would run for it. Per-file
// scores go to MUTATION.md; a file under the floor makes the run fail.
//
//   npm run mutate                        every group
//   npm run mutate -- delivery            one group
//   npm run mutate -- src/alerts/route.ts one file, against its group's tests
//   npm run mutate -- delivery --concurrency 1   what follows the group goes to stryker
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { globSync } from 'tinyglobby';

const FLOOR = 80;
const REPORT = 'reports/mutation/mutation.json';
const RECORD = 'MUTATION.md';

/**
 * The alert path: what decides whether, when, to whom and with which words an operator is
 * told. `tests` are the specs beside the files plus the integration tests that exercise them.
 */
export const GROUPS = [
  { name: 'alerts', mutate: ['src/alerts/*.ts'], tests: ['src/alerts/*.spec.ts'] },
  { name: 'delivery', mutate: ['src/delivery/*.ts'], tests: ['src/delivery/*.spec.ts'] },
  { name: 'engine', mutate: ['src/engine/*.ts'], tests: ['src/engine/*.spec.ts'] },
  { name: 'validator-health', mutate: ['src/rules/validator-health/*.ts'], tests: ['src/rules/validator-health/*.spec.ts', 'src/rules/registry.spec.ts'] },
  { name: 'validator-status', mutate: ['src/rules/validator-status/*.ts'], tests: ['src/rules/validator-status/*.spec.ts', 'src/rules/registry.spec.ts'] },
  { name: 'node-health', mutate: ['src/rules/node-health/*.ts'], tests: ['src/rules/node-health/*.spec.ts'] },
  { name: 'node-metrics', mutate: ['src/rules/node-metrics/*.ts'], tests: ['src/rules/node-metrics/*.spec.ts'] },
  { name: 'node-upgrade', mutate: ['src/rules/node-upgrade/*.ts'], tests: ['src/rules/node-upgrade/*.spec.ts'] },
  {
    name: 'channels',
    mutate: ['src/channels/*/message.ts', 'src/channels/pagerduty/event.ts', 'src/channels/alertmanager/posted.ts', 'src/channels/text.ts', 'src/channels/digest.ts', 'src/channels/key-details.ts'],
    tests: ['src/channels/**/*.spec.ts'],
  },
];

/**
 * Files never mutated: the specs, type declarations (a schema's defaults and checks are
 * behaviour: they are), and AvalancheGo's metric names (a table: only a second copy of it could
 * tell a blanked name).
 */
const SKIP = [/\.spec\.ts$/, /\/types\.ts$/, /\/avalanchego-names\.ts$/];

const filesOf = (g) => globSync(g.mutate).filter((f) => !SKIP.some((re) => re.test(f))).sort();

function pick(arg) {
  if (arg === undefined) return GROUPS.map((g) => ({ group: g, files: filesOf(g) }));
  const group = GROUPS.find((g) => g.name === arg);
  if (group) return [{ group, files: filesOf(group) }];
  const owner = GROUPS.find((g) => filesOf(g).includes(arg));
  if (owner) return [{ group: owner, files: [arg] }];
  console.error(`mutate: ${arg} is neither a group (${GROUPS.map((g) => g.name).join(', ')}) nor a file of one`);
  process.exit(2);
}

/** Stryker's score: detected (killed, timed out) over every mutant that could have been. */
function scoresOf(report) {
  const out = {};
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const n = { killed: 0, survived: 0, noCoverage: 0 };
    for (const m of mutants) {
      if (m.status === 'Killed' || m.status === 'Timeout') n.killed++;
      else if (m.status === 'Survived') n.survived++;
      else if (m.status === 'NoCoverage') n.noCoverage++;
    }
    const all = n.killed + n.survived + n.noCoverage;
    out[file] = { ...n, score: all === 0 ? 100 : Math.floor((1000 * n.killed) / all) / 10 };
  }
  return out;
}

/** The recorded table, read back so that one group's run updates only its rows. */
function readRecord() {
  const rows = {};
  if (!existsSync(RECORD)) return rows;
  for (const line of readFileSync(RECORD, 'utf8').split('\n')) {
    const m = /^\| `([^`]+)` \| ([\d.]+)% \| (\d+) \| (\d+) \| (\d+) \| (\S+) \|$/.exec(line);
    if (m) rows[m[1]] = { score: Number(m[2]), killed: Number(m[3]), survived: Number(m[4]), noCoverage: Number(m[5]), date: m[6] };
  }
  return rows;
}

function writeRecord(rows) {
  const files = Object.keys(rows).sort();
  const table = files.map((f) => {
    const r = rows[f];
    return `| \`${f}\` | ${r.score.toFixed(1)}% | ${r.killed} | ${r.survived} | ${r.noCoverage} | ${r.date} |`;
  });
  const under = files.filter((f) => rows[f].score < FLOOR);
  writeFileSync(
    RECORD,
    [
      '# Mutation scores of the alert path',
      '',
      `Written by \`npm run mutate\` (scripts/mutate.mjs, StrykerJS): the share of mutants that a`,
      `file's own tests detect (killed or timed out) among all it has. Floor: ${FLOOR}% per file.`,
      'How to run it and read it: docs/testing.md "Mutation testing".',
      '',
      under.length === 0 ? `Every file is at or over ${FLOOR}%.` : `Under ${FLOOR}%: ${under.map((f) => `\`${f}\``).join(', ')}.`,
      '',
      '| file | score | detected | survived | no coverage | measured |',
      '|---|---|---|---|---|---|',
      ...table,
      '',
    ].join('\n'),
  );
}

const arg = process.argv[2];
const today = new Date().toISOString().slice(0, 10);
const failed = [];
for (const { group, files } of pick(arg)) {
  console.log(`\n== ${group.name}: ${files.length} file(s) against ${group.tests.join(', ')}`);
  rmSync(REPORT, { force: true });
  const run = spawnSync('npx', ['stryker', 'run', '--mutate', files.join(','), ...process.argv.slice(3)], {
    stdio: 'inherit',
    env: { ...process.env, AVAWATCH_MUTATE_TESTS: group.tests.join(',') },
  });
  if (run.status !== 0 || !existsSync(REPORT)) {
    failed.push(`${group.name}: stryker exited ${run.status}`);
    continue;
  }
  // Read again now: another run (of another group) may have written its rows meanwhile.
  const rows = readRecord();
  for (const [file, s] of Object.entries(scoresOf(JSON.parse(readFileSync(REPORT, 'utf8'))))) {
    rows[file] = { ...s, date: today };
    if (s.score < FLOOR) failed.push(`${file}: ${s.score}% (${s.survived} survived, ${s.noCoverage} not covered)`);
  }
  writeRecord(rows);
}
console.log(`\nScores recorded in ${RECORD}.`);
if (failed.length > 0) {
  console.error(`Under the ${FLOOR}% floor or failed:\n  ${failed.join('\n  ')}`);
  process.exit(1);
}
