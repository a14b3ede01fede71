import { createServer } from 'node:net';

/**
 * Linux's ephemeral ports (net.ipv4.ip_local_port_range, 32768–60999 by default): the source
 * ports of outgoing connections. A port a test picks to bind later is taken below them, so that
 * none of the many loopback connections of the suite's other workers holds it by then (CI once
 * failed so: "cannot listen on 127.0.0.1:41391: EADDRINUSE", a port found free a second before).
 */
const LOW = 20_000;
const HIGH = 32_767;

/** A TCP port of 127.0.0.1 free now, below the ephemeral range; the caller binds it later. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW + 1));
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) continue;
    await new Promise((r) => server.close(r));
    return port;
  }
  throw new Error(`no free port of 127.0.0.1 between ${LOW} and ${HIGH} after 100 tries`);
}
