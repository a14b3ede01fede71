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

/** One line for `avawatch check`: who can reach the server, and what it asks for. */
export function describeAccess(server: { listen: string; auth?: { token?: unknown; username?: string | undefined } | undefined }): string {
  const reach = isLoopback(server.listen) ? 'loopback only' : 'reachable from other hosts';
  const auth = server.auth;
  if (!auth) return `${reach}, no auth${isLoopback(server.listen) ? '' : ' (NOT PROTECTED: set server.auth)'}`;
  const schemes = [auth.token ? 'bearer token' : '', auth.username !== undefined ? `basic (user ${auth.username})` : ''].filter(Boolean);
  return `${reach}, auth: ${schemes.join(' or ')} on /, /metrics and /api/v1/alerts`;
}
