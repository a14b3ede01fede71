import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { globSync } from 'tinyglobby';
import { channel } from '../channels/registry.js';
import { issuesToProblems, valueAt } from '../base/issues.js';
import { CONFIG_SECRET_KEYS, configSchema, type ChildRoute, type Config } from './schema.js';
import { isLoopback } from '../base/listen.js';
import { Secret } from '../base/secret.js';
import { YamlSource, type ConfigPath, type ConfigProblem } from '../base/source.js';
import { readInventory } from '../inventory/load.js';
import { ConfigError, type LoadedConfig, type LoadedRule, type LoadOptions } from './loaded.js';
import { display, loadRuleFile, readText } from './rule-file.js';

export { ConfigError, type LoadedConfig, type LoadedRule, type LoadOptions } from './loaded.js';

export const DEFAULT_CONFIG_PATH = 'config/avawatch.yaml';

/** -c/--config, else AVAWATCH_CONFIG, else config/avawatch.yaml. */
export function configPath(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag ?? (env['AVAWATCH_CONFIG'] || DEFAULT_CONFIG_PATH);
}

/**
 * Reads the config and every rule file it names. Throws ConfigError with every problem
 * found, in every file, not only the first.
 */
export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): LoadedConfig {
  const shown = display(file);
  if (!existsSync(file)) {
    throw new ConfigError([{ file: shown, line: 1, col: 1, path: '', message: 'config file not found' }]);
  }
  const source = new YamlSource(shown, readText(file, shown), env);
  const problems = [...source.problems];
  const warnings: string[] = [];
  const parsed = source.syntaxOk ? configSchema.safeParse(source.data ?? {}) : undefined;
  if (parsed && !parsed.success) problems.push(...issuesToProblems(source, parsed.error.issues, [], CONFIG_SECRET_KEYS));
  const config = parsed?.success ? parsed.data : undefined;
  const inventory = readInventory(source, config, dirname(resolve(file)), env, display);
  problems.push(...inventory.problems);

  const rules: LoadedRule[] = [];
  const ruleFiles: string[] = [];
  const patterns = config?.ruleFiles ?? ruleFilesOf(source.data);
  const skipped: Array<{ file: string; placeholder: string }> = [];
  const idle: string[] = [];
  const noApi: string[] = [];
  patterns.forEach((pattern, i) => {
    const files = globSync(pattern, { cwd: dirname(resolve(file)), absolute: true }).sort();
    // An example with placeholders is loaded only when named on its own, never swept up by a glob.
    const named = !/[*?[\]{}]/.test(pattern);
    if (files.length === 0) {
      const [line, col] = source.position(['ruleFiles', i]);
      warnings.push(`${shown}:${line}:${col}: ruleFiles[${i}]: "${pattern}" matches no file`);
    }
    for (const ruleFile of files) {
      if (ruleFiles.includes(ruleFile)) continue;
      const loadedRules = loadRuleFile(ruleFile, env, problems, warnings, inventory.validators, config?.networks, idle, noApi, named ? undefined : skipped);
      if (loadedRules === 'skipped') continue;
      ruleFiles.push(ruleFile);
      rules.push(...loadedRules);
    }
  });

  if (config) problems.push(...readSecretFiles(source, config, dirname(resolve(file))));
  const deliveryWarnings: string[] = [];
  if (config) problems.push(...crossCheck(source, config, rules, warnings, deliveryWarnings, options));
  warnings.push(...deliveryWarnings);
  if (problems.length > 0 || !config) throw new ConfigError(sortProblems(problems));
  if (idle.length > 0) {
    warnings.push(`${shown}: the inventory lists no validator, so ${idle.length} rule(s) with "validators: all" watch nothing and are not loaded (${someOf(idle)}): add yours under validators: (or run avawatch init --node NodeID-…)`);
  }
  if (config.heartbeat && !config.heartbeat.url) warnings.push(`${shown}: heartbeat.url is empty: no heartbeat is sent`);
  if (noApi.length > 0) {
    warnings.push(`${shown}: no validator in the inventory declares its node's api URL, so ${noApi.length} rule(s) that read the node itself are not loaded (${someOf(noApi)}): add api: http://127.0.0.1:9650 to a validator (docs/node.md)`);
  }
  if (rules.length === 0) warnings.push(`${shown}: no rules loaded: nothing will be watched`);

  const secrets: Secret[] = config.api.apiKey ? [config.api.apiKey] : [];
  for (const s of [config.server.auth?.token, config.server.auth?.password, config.heartbeat?.url, config.heartbeat?.failUrl]) if (s) secrets.push(s);
  // The database URL, and its password alone (a driver's error may quote either).
  if (config.state.url) secrets.push(config.state.url, ...urlCredentials(config.state.url.reveal()));
  // A node's API behind a proxy may carry credentials (http://user:pass@host): never shown either.
  for (const rule of rules) {
    const { urls, nodeApis, pChainApi } = rule.spec as { urls?: Record<string, string>; nodeApis?: Record<string, string>; pChainApi?: string };
    for (const url of [...Object.values(urls ?? {}), ...Object.values(nodeApis ?? {}), ...(pChainApi === undefined ? [] : [pChainApi])]) secrets.push(...urlCredentials(url));
  }
  for (const receiver of config.receivers) {
    for (const f of channel(receiver.type).secretFields) {
      const value = at(receiver, f.path)?.[f.key];
      if (value instanceof Secret) secrets.push(value);
    }
  }
  const inventoryFile = inventory.file === undefined ? {} : { inventoryFile: inventory.file };
  return { file: resolve(file), config, rules, ruleFiles, inventory: inventory.validators ?? [], ...inventoryFile, warnings, deliveryWarnings, secrets, skipped };
}

/**
 * The examples to copy (`check` names them): rule files with a `placeholder:` that were not
 * loaded, found by a glob or lying beside the loaded ones. Read only when asked, not at start.
 */
export function notLoadedExamples(loaded: Pick<LoadedConfig, 'ruleFiles' | 'skipped'>): Array<{ file: string; placeholder: string }> {
  const out = [...loaded.skipped];
  for (const dir of new Set(loaded.ruleFiles.map((f) => dirname(f)))) {
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
      const file = join(dir, name);
      if (loaded.ruleFiles.includes(file) || out.some((e) => e.file === display(file))) continue;
      // Only the top-level key is wanted: a file that cannot be read or parsed is simply not an example.
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      const placeholder = /^placeholder:\s*(.+)$/m.exec(text)?.[1]?.trim().replace(/^["']|["']$/g, '');
      if (placeholder) out.push({ file: display(file), placeholder });
    }
  }
  return out.sort((a, b) => (a.file < b.file ? -1 : 1));
}

/**
 * `apiKeyFile`, `webhookUrlFile`, `passFile`: the secret is read from a file (relative to the
 * config file), e.g. a Docker or Kubernetes secret, and becomes the plain key's value.
 */
function readSecretFiles(source: YamlSource, config: Config, dir: string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const places: Array<{ obj: Record<string, unknown> | undefined; path: ConfigPath; key: string; url?: boolean }> = [
    { obj: config.api as Record<string, unknown>, path: ['api'], key: 'apiKey' },
    { obj: config.server.auth, path: ['server', 'auth'], key: 'token' },
    { obj: config.server.auth, path: ['server', 'auth'], key: 'password' },
    { obj: config.heartbeat as Record<string, unknown> | undefined, path: ['heartbeat'], key: 'url', url: true },
    { obj: config.heartbeat as Record<string, unknown> | undefined, path: ['heartbeat'], key: 'failUrl', url: true },
    ...config.receivers.flatMap((r, i) =>
      channel(r.type).secretFields.map((f) => ({ obj: at(r, f.path), path: ['receivers', i, ...f.path] as ConfigPath, key: f.key, url: f.url })),
    ),
  ];
  for (const { obj, path, key, url } of places) {
    const fileKey = `${key}File`;
    const name = obj?.[fileKey];
    if (!obj || typeof name !== 'string') continue;
    if (obj[key] !== undefined) {
      problems.push(source.problem([...path, fileKey], `set ${key} or ${fileKey}, not both`));
      continue;
    }
    try {
      const value = readFileSync(resolve(dir, name), 'utf8').trim();
      if (url && !/^https?:\/\//.test(value)) {
        problems.push(source.problem([...path, fileKey], `${name} does not hold an http:// or https:// URL (value not shown: it is a secret)`));
        continue;
      }
      obj[key] = value === '' ? undefined : new Secret(value);
      delete obj[fileKey];
    } catch (err) {
      problems.push(source.problem([...path, fileKey], `cannot read secret file ${name} (${(err as NodeJS.ErrnoException).code ?? String(err)})`));
    }
  }
  return problems;
}

/** Checks that span files: unique names, receivers that exist. */
function crossCheck(source: YamlSource, config: Config, rules: LoadedRule[], warnings: string[], delivery: string[], options: LoadOptions): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const receiverNames = new Set<string>();
  config.receivers.forEach((r, i) => {
    if (receiverNames.has(r.name)) problems.push(source.problem(['receivers', i, 'name'], `receiver "${r.name}" is defined twice`));
    receiverNames.add(r.name);
    const reason = channel(r.type).disabledReason(r);
    if (reason) {
      const [line, col] = source.position(['receivers', i]);
      delivery.push(`${source.file}:${line}:${col}: receivers[${i}]: receiver "${r.name}" is disabled: ${reason}`);
    }
  });
  problems.push(...authProblems(source, config));
  if (!config.server.auth && !isLoopback(config.server.listen)) {
    const [line, col] = source.position(['server', 'listen']);
    warnings.push(
      `${source.file}:${line}:${col}: server.listen: ${config.server.listen} is reachable from other hosts and server.auth is not set: whoever reaches it reads /, /metrics and /api/v1/alerts (set server.auth, or listen on 127.0.0.1)`,
    );
  }
  const intervals = new Set(config.timeIntervals.map((t) => t.name));
  const checkRoute = (route: { receivers?: string[] | undefined; muteTimeIntervals?: string[] | undefined; routes: ChildRoute[] }, path: ConfigPath): void => {
    route.receivers?.forEach((r, i) => {
      if (!receiverNames.has(r)) problems.push(source.problem([...path, 'receivers', i], `no receiver named "${r}"`));
    });
    route.muteTimeIntervals?.forEach((t, i) => {
      if (!intervals.has(t)) problems.push(source.problem([...path, 'muteTimeIntervals', i], `no time interval named "${t}"`));
    });
    route.routes.forEach((child, i) => checkRoute(child, [...path, 'routes', i]));
  };
  checkRoute(config.route, ['route']);

  const seen = new Map<string, LoadedRule>();
  for (const rule of rules) {
    const first = seen.get(rule.name);
    if (first) {
      problems.push(rule.locate(['name'], `rule name "${rule.name}" is already used at ${first.file}:${first.line}:${first.col}`));
    } else seen.set(rule.name, rule);
    if (options.skipReceiverCheck) continue;
    (rule.receivers ?? []).forEach((r, j) => {
      if (!receiverNames.has(r)) problems.push(rule.locate(['receivers', j], `no receiver named "${r}"`));
    });
    if ((rule.receivers ?? config.route.receivers).length === 0) {
      delivery.push(`${rule.file}:${rule.line}:${rule.col}: rule "${rule.name}" has no receivers: its alerts are recorded, not sent`);
    }
  }
  return problems;
}

/**
 * server.auth, once its files are read: a token, or a username with a password, or both.
 * A secret that came out empty (an unset `${VAR:-}`, an empty file) is an error, never
 * "no auth": the operator asked for it.
 */
function authProblems(source: YamlSource, config: Config): ConfigProblem[] {
  const auth = config.server.auth;
  if (!auth) return [];
  const at = (key: string, message: string) => source.problem(['server', 'auth', key], message);
  const problems: ConfigProblem[] = [];
  const empty = (key: 'token' | 'password') => key in auth && auth[key] === undefined;
  if (empty('token')) problems.push(at('token', 'the token is empty (an unset variable or an empty file?); remove server.auth to serve without one'));
  if (empty('password')) problems.push(at('password', 'the password is empty (an unset variable or an empty file?)'));
  else if (auth.username !== undefined && auth.password === undefined) problems.push(at('username', 'set password (or passwordFile) with username'));
  if (auth.username === undefined && auth.password !== undefined) problems.push(at('password', 'set username with password'));
  if (problems.length === 0 && !auth.token && auth.username === undefined) {
    problems.push(source.problem(['server', 'auth'], 'set token (or tokenFile) for a bearer token, or username and password (or passwordFile) for basic credentials'));
  }
  return problems;
}


function ruleFilesOf(data: unknown): string[] {
  const value = valueAt(data, ['ruleFiles']);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}


/** Files in the order they were read, each top to bottom. */
function sortProblems(problems: ConfigProblem[]): ConfigProblem[] {
  const order = [...new Set(problems.map((p) => p.file))];
  return [...problems].sort((a, b) => order.indexOf(a.file) - order.indexOf(b.file) || a.line - b.line || a.col - b.col);
}

/** The object at `path` inside a receiver (e.g. smtp.auth), if there is one. */
function at(receiver: object, path: readonly string[]): Record<string, unknown> | undefined {
  let obj: unknown = receiver;
  for (const key of path) obj = typeof obj === 'object' && obj !== null ? (obj as Record<string, unknown>)[key] : undefined;
  return typeof obj === 'object' && obj !== null ? (obj as Record<string, unknown>) : undefined;
}

/** The first names of a list, and how many more: a warning stays one readable line. */
function someOf(names: readonly string[], shown = 6): string {
  return names.length <= shown ? names.join(', ') : `${names.slice(0, shown).join(', ')} and ${names.length - shown} more`;
}

/** The password of a URL's userinfo, as a secret (none without one). */
function urlCredentials(url: string): Secret[] {
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === '' ? [] : [new Secret(password)];
  } catch {
    return [];
  }
}
