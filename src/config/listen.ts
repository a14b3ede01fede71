// server.listen: where the HTTP server binds, and whether only this host can reach it.

/** `127.0.0.1:9464`, `[::1]:9464` or `:9464` (all interfaces). */
export function parseListen(listen: string): { host: string | undefined; port: number } {
  const at = listen.lastIndexOf(':');
  const host = listen.slice(0, at).replace(/^\[(.*)\]$/, '$1');
  return { host: host === '' ? undefined : host, port: Number(listen.slice(at + 1)) };
}

/**
 * Only processes on this host can connect: 127.0.0.0/8, ::1 (also IPv4-mapped) or
 * localhost. `:9464`, `0.0.0.0` and `::` are every interface; a name other than localhost
 * may resolve anywhere.
 */
export function isLoopback(listen: string): boolean {
  const host = parseListen(listen).host?.toLowerCase();
  if (host === undefined) return false;
  if (host === 'localhost' || host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  return /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
