import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TempProject {
  dir: string;
  configFile: string;
  statePath: string;
  cleanup(): void;
}

export interface ProjectOptions {
  dataUrl: string;
  /** api.metricsUrl (default: the config's default, the live Metrics API). */
  metricsUrl?: string;
  webhookUrl?: string;
  every?: string;
  nodeIds: string[];
  network?: string;
  extraConfig?: string;
  /** More keys under api:, e.g. `budget: pro`. */
  api?: string;
  /** route.groupBy (default: the root's, by rule). */
  groupBy?: string[];
  /** api.timeout (default 3s). */
  timeout?: string;
  /** api.retries (default 1). */
  retries?: number;
  /** Rule files (name → YAML) written to rules/ instead of the validator-status rule of `nodeIds`. */
  rules?: Record<string, string>;
}

/** A config and a rule file on disk, as an operator would write them. */
export function writeProject(o: ProjectOptions): TempProject {
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-'));
  const statePath = join(dir, 'state', 'avawatch.db');
  const configFile = join(dir, 'avawatch.yaml');
  writeFileSync(
    configFile,
    `api:
  dataUrl: ${o.dataUrl}${o.metricsUrl ? `\n  metricsUrl: ${o.metricsUrl}` : ''}
  retries: ${o.retries ?? 1}${o.api ? `\n  ${o.api}` : ''}
  retryBackoff: 10ms
  timeout: ${o.timeout ?? '3s'}
state:
  path: ${statePath}
server:
  listen: 127.0.0.1:0
route:
  receivers: [ops-slack]${o.groupBy ? `\n  groupBy: [${o.groupBy.join(', ')}]` : ''}
receivers:
  - name: ops-slack
    type: slack
    webhookUrl: ${o.webhookUrl ?? '${SLACK_WEBHOOK_URL:-}'}
    minInterval: 10ms
    timeout: 2s
delivery:
  backoff: 100ms
  backoffMax: 500ms
ruleFiles: [rules/*.yaml]
${o.extraConfig ?? ''}`,
  );
  if (o.rules) {
    mkdirSync(join(dir, 'rules'), { recursive: true });
    for (const [name, yaml] of Object.entries(o.rules)) writeFileSync(join(dir, 'rules', name), yaml);
  } else writeRules(dir, o);
  return { dir, configFile, statePath, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Where a project's files point: the simulator, the Slack receiver, the state file. */
export interface ProjectUrls {
  dataUrl: string;
  webhookUrl: string;
  statePath: string;
}

/** A project whose files (name or path → text, the config as avawatch.yaml) the test writes itself. */
export function writeFiles(files: (p: ProjectUrls) => Record<string, string>, urls: Omit<ProjectUrls, 'statePath'>): TempProject {
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-'));
  const statePath = join(dir, 'state.db');
  for (const [name, text] of Object.entries(files({ ...urls, statePath }))) {
    mkdirSync(dirname(join(dir, name)), { recursive: true }); // a name may be a path (rules/x.yaml)
    writeFileSync(join(dir, name), text);
  }
  return { dir, configFile: join(dir, 'avawatch.yaml'), statePath, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function writeRules(dir: string, o: Pick<ProjectOptions, 'every' | 'nodeIds' | 'network'>): void {
  const rules = join(dir, 'rules');
  mkdirSync(rules, { recursive: true });
  writeFileSync(
    join(rules, 'validators.yaml'),
    `rules:
  - name: my-validators
    kind: validator-status
    every: ${o.every ?? '1s'}
    severity: critical
    network: ${o.network ?? 'mainnet'}
    nodeIds:
${o.nodeIds.map((id) => `      - ${id}`).join('\n')}
`,
  );
}
