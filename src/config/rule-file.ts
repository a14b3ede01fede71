import { isAbsolute, relative, resolve } from 'node:path';
import { Cron } from 'croner';
import { issuesToProblems, valueAt } from '../base/issues.js';
import { parseDuration } from '../base/duration.js';
import { scheduleOf } from '../base/schedule.js';
import { formatProblem, YamlSource, type ConfigPath, type ConfigProblem } from '../base/source.js';
import { ruleKinds, type AnyRuleKind } from '../rules/registry.js';
import { resolveSelector, splitByNetwork, type Resolved } from '../inventory/select.js';
import type { InventoryValidator } from '../inventory/schema.js';
import { ConfigError, type LoadedRule } from './loaded.js';
import { CONFIG_SECRET_KEYS, NETWORK_KEYS, ruleFileSchema, ruleSchema, type Config, type NetworkSettings, type RuleCommon } from './schema.js';

// One rule file: each rule checked on its own (its kind, its schedule, its validators), split
// by network, with what `networks:` sets for it. And how every config file is read and shown.

/** The file's rules; 'skipped' for an example with placeholders that a glob found (recorded in `skipped`). */
export function loadRuleFile(
  file: string,
  env: NodeJS.ProcessEnv,
  problems: ConfigProblem[],
  warnings: string[],
  inventory: readonly InventoryValidator[] | undefined,
  networks: Config['networks'] | undefined,
  idle: string[],
  noApi: string[],
  skipped?: Array<{ file: string; placeholder: string }>,
): LoadedRule[] | 'skipped' {
  const shown = display(file);
  const source = new YamlSource(shown, readText(file, shown), env);
  problems.push(...source.problems);
  if (!source.syntaxOk) return [];
  if (source.data === undefined || source.data === null) {
    problems.push(source.problem([], 'the file is empty: expected "rules:" with a list of rules'));
    return [];
  }
  const frame = ruleFileSchema.safeParse(source.data);
  if (!frame.success) {
    problems.push(...issuesToProblems(source, frame.error.issues, [], CONFIG_SECRET_KEYS));
    return [];
  }
  if (frame.data.placeholder && skipped) {
    skipped.push({ file: shown, placeholder: frame.data.placeholder });
    return 'skipped';
  }
  if (frame.data.placeholder) {
    const [line, col] = source.position(['placeholder']);
    warnings.push(`${shown}:${line}:${col}: an example with placeholders (${frame.data.placeholder}): replace them with your own, then remove "placeholder:"`);
  }
  // Each rule on its own, so one broken rule does not hide the problems of the next.
  const rules: LoadedRule[] = [];
  frame.data.rules.forEach((raw, i) => {
    const locate = (path: ConfigPath, message: string) => source.problem(['rules', i, ...path], message);
    problems.push(...scheduleProblems(raw, locate));
    const kind = kindOf(raw);
    const parts = splitByNetwork(raw, kind, inventory);
    // A problem of the rule as written is said once, not once per network.
    const said = new Set<string>();
    const say = (list: readonly ConfigProblem[]) => {
      for (const p of list) {
        const text = formatProblem(p);
        if (said.has(text)) continue;
        said.add(text);
        problems.push(p);
      }
    };
    const selections = parts.map((part) => resolveSelector(part.raw, kind, inventory, locate));
    // Left out only when no part watches anything (a Fuji part may read a node the mainnet one lacks).
    const first = selections[0];
    if (first && selections.every((s) => s.idle)) (first.idleWhy === 'api' ? noApi : idle).push(String((raw as { name?: unknown }).name));
    parts.forEach((part, p) => {
      const selection = selections[p] as Resolved;
      say(selection.problems);
      if (selection.raw === undefined) return;
      const parsed = ruleSchema.safeParse(withNetworkSettings(selection.raw, kind, networks));
      if (!parsed.success) {
        // A selector that failed already said why the keys it fills are missing.
        const echo = (path: readonly PropertyKey[]) => selection.problems.length > 0 && (path.length === 0 || (kind?.selects ?? []).some((k) => k === path[0]));
        say(issuesToProblems(source, parsed.error.issues.filter((issue) => !echo(issue.path)), ['rules', i], CONFIG_SECRET_KEYS));
        return;
      }
      const [line, col] = source.position(['rules', i]);
      const spec = parsed.data as Record<string, unknown>;
      // The suffix goes on after the parse: a name the operator writes cannot take it (no '@'), so parts never collide with a rule.
      if (part.suffix !== '') spec['name'] = `${String(spec['name'])}${part.suffix}`;
      const { every, schedule, ...common } = spec as unknown as RuleCommon;
      const split = part.network === undefined ? {} : { split: { of: String((raw as { name?: unknown }).name), network: part.network } };
      rules.push({ ...common, schedule: scheduleOf({ every, schedule }), spec, validators: selection.validators, ...split, file: shown, line, col, locate });
    });
  });
  return rules;
}

/** The rule with what `networks.<its network>` sets, for the keys its kind takes and it leaves unset. */
function withNetworkSettings(raw: unknown, kind: AnyRuleKind | undefined, networks: Config['networks'] | undefined): unknown {
  if (!kind || !networks || raw === null || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const rule = raw as Record<string, unknown>;
  const settings: NetworkSettings | undefined = rule['network'] === 'mainnet' ? networks.mainnet : rule['network'] === 'fuji' || rule['network'] === 'testnet' ? networks.fuji : undefined;
  if (!settings) return raw;
  const out = { ...rule };
  for (const key of NETWORK_KEYS) if (key in kind.spec.shape && out[key] === undefined && settings[key] !== undefined) out[key] = settings[key];
  return out;
}

/** every xor schedule, checked on the raw rule so other broken keys do not hide it. */
function scheduleProblems(raw: unknown, locate: LoadedRule['locate']): ConfigProblem[] {
  if (raw === null || typeof raw !== 'object') return [];
  const { every, schedule } = raw as { every?: unknown; schedule?: unknown };
  if ((every === undefined) === (schedule === undefined)) {
    return [locate(every === undefined ? [] : ['every'], 'set exactly one of "every" (a duration) or "schedule" (cron)')];
  }
  if (typeof every === 'string') {
    const ms = parseDuration(every);
    if (ms !== undefined && ms < 1000) return [locate(['every'], 'must be at least 1s')];
  }
  if (typeof schedule === 'string') {
    const error = cronError(schedule);
    if (error) return [locate(['schedule'], `not a valid cron expression: ${error}`)];
  }
  return [];
}


function cronError(pattern: string): string | undefined {
  try {
    new Cron(pattern, { paused: true }).stop();
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function kindOf(raw: unknown): AnyRuleKind | undefined {
  const kind = valueAt(raw, ['kind']);
  return typeof kind === 'string' && Object.hasOwn(ruleKinds, kind) ? (ruleKinds as Record<string, AnyRuleKind>)[kind] : undefined;
}

/** The file's text; a ConfigError naming it when it cannot be read. */
export function readText(file: string, shown: string): string {
  try {
    return YamlSource.text(file);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new ConfigError([{ file: shown, line: 1, col: 1, path: '', message: `cannot read the file (${reason})` }]);
  }
}

/** Paths as the user would type them: relative inside the working directory, else absolute. */
export function display(file: string): string {
  const rel = relative(process.cwd(), resolve(file));
  return rel.startsWith('..') || isAbsolute(rel) ? resolve(file) : rel;
}
