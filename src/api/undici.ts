import type * as Undici from 'undici';

// undici loads at the first request, not with the module: a command that sends none (check,
// init, silence, --help) starts without its 1 MB of source.

let loading: Promise<typeof Undici> | undefined;

export function undici(): Promise<typeof Undici> {
  return (loading ??= import('undici'));
}
