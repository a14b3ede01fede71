import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil } from './wait.js';
import { freePort } from './ports.js';

/** The Debian package's binary (prometheus-alertmanager), or an alertmanager on PATH. */
export function alertmanagerBinary(): string {
  for (const name of ['prometheus-alertmanager', 'alertmanager']) {
    if (spawnSync('sh', ['-c', `command -v ${name}`]).status === 0) return name;
  }
  throw new Error('Alertmanager is not installed: run `bash scripts/test-deps.sh` (Debian package prometheus-alertmanager)');
}


export interface RunningAlertmanager {
  url: string;
  /** GET /api/v2/status: the cluster as this peer sees it. */
  status(): Promise<{ cluster: { status: string; peers: unknown[] } }>;
  alerts(): Promise<Array<{ labels: Record<string, string>; annotations: Record<string, string>; endsAt: string; status: { state: string } }>>;
  /**
   * What the dispatcher did, in order, read from the debug log: an alert received, a group
   * flushed. A peer whose last event is a flush has sent all it will of what it received.
   */
  dispatched(): Array<'received' | 'flushed'>;
  stop(): Promise<void>;
}

export interface AlertmanagerOptions {
  /** alertmanager.yml (default: one receiver that sends nowhere). */
  config?: string;
  /** Cluster: this peer's gossip port and the others'. Default: clustering off. */
  cluster?: { port: number; peers: number[]; peerTimeout: string };
}

/** A real Alertmanager on loopback, clustering off unless asked, with a receiver that sends nowhere unless configured. */
export async function startAlertmanager(o: AlertmanagerOptions = {}): Promise<RunningAlertmanager> {
  const dir = mkdtempSync(join(tmpdir(), 'avawatch-am-'));
  writeFileSync(join(dir, 'alertmanager.yml'), o.config ?? 'route:\n  receiver: nowhere\n  group_wait: 0s\nreceivers:\n  - name: nowhere\n');
  const port = await freePort();
  const cluster = o.cluster
    ? [
        `--cluster.listen-address=127.0.0.1:${o.cluster.port}`,
        `--cluster.advertise-address=127.0.0.1:${o.cluster.port}`,
        ...o.cluster.peers.map((p) => `--cluster.peer=127.0.0.1:${p}`),
        `--cluster.peer-timeout=${o.cluster.peerTimeout}`,
        '--cluster.settle-timeout=2s',
      ]
    : ['--cluster.listen-address='];
  const child: ChildProcess = spawn(
    alertmanagerBinary(),
    [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${dir}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=debug', ...cluster],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const dispatched: Array<'received' | 'flushed'> = [];
  let partial = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.includes(' component=dispatcher msg="Received alert" ')) dispatched.push('received');
      else if (line.includes(' msg=flushing ')) dispatched.push('flushed');
    }
  });
  const url = `http://127.0.0.1:${port}`;
  // real wait: Alertmanager is a process of its own, on the wall clock.
  await waitUntil(async () => (await fetch(`${url}/-/ready`).catch(() => undefined))?.ok, 'Alertmanager to be ready', 15_000);
  return {
    url,
    alerts: async () => (await (await fetch(`${url}/api/v2/alerts`)).json()) as never,
    status: async () => (await (await fetch(`${url}/api/v2/status`)).json()) as never,
    dispatched: () => [...dispatched],
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
