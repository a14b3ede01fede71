import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { issuesToProblems, valueAt } from '../base/issues.js';
import { YamlSource, type ConfigProblem } from '../base/source.js';
import { inventory, inventoryFile, type InventoryValidator } from './schema.js';

export interface InventoryRead {
  /** Undefined when it could not be read: rules that select are then not checked against it. */
  validators: InventoryValidator[] | undefined;
  /** The file validatorsFile names (absolute). */
  file?: string;
  problems: ConfigProblem[];
}

/**
 * The inventory: `validators:` in the config, or the file `validatorsFile` names (relative to
 * the config; its problems point into that file). When the config did not parse, a
 * `validators:` list that parses on its own is still used, so its rules are checked.
 */
export function readInventory(source: YamlSource, config: { validators?: InventoryValidator[] | undefined; validatorsFile?: string | undefined } | undefined, dir: string, env: NodeJS.ProcessEnv, display: (file: string) => string): InventoryRead {
  if (!config) {
    if (valueAt(source.data, ['validatorsFile']) !== undefined) return { validators: undefined, problems: [] };
    const parsed = inventory.safeParse(valueAt(source.data, ['validators']) ?? []);
    return { validators: parsed.success ? parsed.data : undefined, problems: [] };
  }
  const name = config.validatorsFile;
  if (name === undefined) return { validators: config.validators ?? [], problems: [] };
  if (config.validators !== undefined) return { validators: undefined, problems: [source.problem(['validatorsFile'], 'set validators or validatorsFile, not both')] };
  const file = resolve(dir, name);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { validators: undefined, file, problems: [source.problem(['validatorsFile'], `cannot read ${name} (${(err as NodeJS.ErrnoException).code ?? String(err)})`)] };
  }
  const inner = new YamlSource(display(file), text, env);
  if (!inner.syntaxOk) return { validators: undefined, file, problems: inner.problems };
  const parsed = inventoryFile.safeParse(inner.data ?? {});
  if (!parsed.success) return { validators: undefined, file, problems: [...inner.problems, ...issuesToProblems(inner, parsed.error.issues)] };
  return { validators: parsed.data.validators, file, problems: inner.problems };
}
