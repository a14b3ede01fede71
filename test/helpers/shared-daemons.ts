import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, type Daemon } from './cli.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

/** What a test started, to stop after it: a daemon that never came up too. */
export interface Started {
  daemons: Daemon[];
  proxies: TcpProxy[];
}

/**
 * `avawatch run` processes on one config, as on hosts of their own: each in a directory of its
 * own, reaching PostgreSQL (its database `pathname`) through a TCP proxy of its own (the network
 * a test can cut), with HOOK_URL `<hookUrl>/<its name>` (the receiver's path names the sender).
 */
export async function startSharing(o: { configFile: string; dir: string; names: readonly string[]; postgresPort: number; pathname: string; hookUrl: string; into: Started }): Promise<Array<{ name: string; daemon: Daemon; proxy: TcpProxy }>> {
  return Promise.all(
    o.names.map(async (name) => {
      const proxy = await startTcpProxy({ target: { host: '127.0.0.1', port: o.postgresPort } });
      o.into.proxies.push(proxy);
      const cwd = join(o.dir, name);
      mkdirSync(cwd);
      const env = { STATE_URL: `postgres://postgres@${proxy.host}:${proxy.port}${o.pathname}`, HOOK_URL: `${o.hookUrl}/${name}` };
      const daemon = startDaemon(o.configFile, { cwd, env });
      o.into.daemons.push(daemon);
      return { name, daemon, proxy };
    }),
  );
}
