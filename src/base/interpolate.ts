// ${VAR} and ${VAR:-default} in YAML string values; $$ is a literal dollar sign.
const PATTERN = /\$\$|\$\{([^}]*)\}|\$\{/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type Interpolated = { ok: true; value: string } | { ok: false; message: string };

export function interpolate(text: string, env: NodeJS.ProcessEnv): Interpolated {
  let error: string | undefined;
  const value = text.replace(PATTERN, (match, body: string | undefined) => {
    if (match === '$$') return '$';
    if (body === undefined) {
      error ??= 'unterminated "${": write ${NAME} or ${NAME:-default}, or $$ for a literal $';
      return match;
    }
    const sep = body.indexOf(':-');
    const name = sep === -1 ? body : body.slice(0, sep);
    if (!NAME.test(name)) {
      error ??= `"\${${body}}" is not a valid variable reference: the name must match [A-Za-z_][A-Za-z0-9_]*`;
      return match;
    }
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (sep !== -1) return body.slice(sep + 2);
    if (found === '') return '';
    error ??= `environment variable ${name} is not set (write \${${name}:-} to make it optional)`;
    return match;
  });
  return error === undefined ? { ok: true, value } : { ok: false, message: error };
}
