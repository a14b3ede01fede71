import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * When the config file is not there: where it was looked for, why there, and the two ways
 * on (name a file, or write one), or undefined when it is there. `given`: -c's value.
 */
export function missingConfig(file: string, given: string | undefined, env: NodeJS.ProcessEnv, command: string): string | undefined {
  if (existsSync(file)) return undefined;
  const where = resolve(file);
  const from = given !== undefined ? 'given with -c' : env['AVAWATCH_CONFIG'] ? 'from AVAWATCH_CONFIG' : `the default, config/avawatch.yaml under the current directory ${process.cwd()}`;
  const flag = given !== undefined || env['AVAWATCH_CONFIG'] ? `-c ${file} ` : '';
  return [
    `no config file at ${where} (${from})`,
    `  name one: avawatch -c <file> ${command}`,
    `  or write one for your validators: avawatch ${flag}init --node NodeID-…`,
  ].join('\n');
}
