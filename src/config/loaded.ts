import type { Schedule } from '../base/schedule.js';
import { formatProblem, type ConfigPath, type ConfigProblem } from '../base/source.js';
import type { Secret } from '../base/secret.js';
import type { RuleValidators } from '../inventory/select.js';
import type { InventoryValidator } from '../inventory/schema.js';
import type { Config, RuleCommon } from './schema.js';

// What loading the config gives: the config and its rules, or every problem found.

export interface LoadedRule extends Omit<RuleCommon, 'every' | 'schedule'> {
  /** When it runs: its `every` or its `schedule`, one value (base/schedule.ts). */
  schedule: Schedule;
  /** The whole parsed rule: common keys and the kind's own. */
  spec: Record<string, unknown>;
  file: string;
  line: number;
  col: number;
  /** Inventory validators the rule watches, by NodeID: its alerts name them and carry their labels. */
  validators?: RuleValidators;
  /** One network's part of a rule that selects validators on two (inventory/select.ts splitByNetwork): the rule as written, and this part's network. */
  split?: { of: string; network: 'mainnet' | 'fuji' };
  /** A problem at a path inside this rule, e.g. ['receivers', 0]. */
  locate(path: ConfigPath, message: string): ConfigProblem;
}

export interface LoadedConfig {
  file: string;
  config: Config;
  rules: LoadedRule[];
  ruleFiles: string[];
  /** The validators `validators:` (or the file `validatorsFile` names) lists. */
  inventory: InventoryValidator[];
  /** The file validatorsFile names (absolute), watched as the rule files are. */
  inventoryFile?: string;
  warnings: string[];
  /** The warnings about sending (a receiver disabled, a rule with none): commands that send nothing leave them out. */
  deliveryWarnings?: string[];
  secrets: Secret[];
  /** Examples with placeholders a ruleFiles glob found and did not load (see notLoadedExamples). */
  skipped: Array<{ file: string; placeholder: string }>;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(readonly problems: ConfigProblem[]) {
    super(problems.map(formatProblem).join('\n'));
  }

  /** What the CLI prints (to stderr) before it exits 1: each problem on a line, then the count. */
  report(): string {
    return `${this.message}\n${this.problems.length} problem(s) found; nothing was started`;
  }
}

/** How loadConfig reads. */
export interface LoadOptions {
  /** Rule tests load rule files without the operator's receivers: do not check the names. */
  skipReceiverCheck?: boolean;
}
