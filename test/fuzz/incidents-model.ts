import fc from 'fast-check';
import { H1, OTHERS, startIncidentWorld } from '../helpers/incident-world.js';

// Issue 40's incident fuzzer, its plays and its record: random sequences of what the operator's
// validators and the network do (and silences of the incidents' alerts) (test/helpers/incident-world.ts builds the real App), each
// followed by 1-12 simulated minutes; what every receiver got and what the store had firing
// are recorded minute by minute for the invariants (incidents-invariants.ts).

export const NETWORK_SIZE = 200;

export type Cmd =
  | { t: 'reach'; vs: number[]; up: boolean; wait: number }
  | { t: 'uptime'; vs: number[]; up: boolean; wait: number }
  | { t: 'dip'; share: number; uptime: number; wait: number }
  | { t: 'sweepFails'; wait: number }
  | { t: 'restart'; wait: number }
  | { t: 'silence'; minutes: number; wait: number };

const wait = fc.integer({ min: 1, max: 12 });
export const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant('reach' as const), vs: fc.subarray([...H1.keys()], { minLength: 1 }), up: fc.constantFrom(false, false, true), wait }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('uptime' as const), vs: fc.subarray([...OTHERS.keys()], { minLength: 1 }), up: fc.constantFrom(false, false, true), wait }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('dip' as const), share: fc.constantFrom(0, 20, 40, 70, 100), uptime: fc.constantFrom(60, 70, 99.5), wait }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('sweepFails' as const), wait }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('restart' as const), wait }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('silence' as const), minutes: fc.integer({ min: 2, max: 20 }), wait }) },
);

/** One receiver's post, as read from its text and blocks. */
export interface Post {
  minute: number;
  firing: boolean;
  /** `v3/reachability` for a child; `incident` for an incident. */
  child?: string;
  /** An incident's scope as its notification says it (`your group host=h1`, `network-wide …`). */
  scope?: string;
  text: string;
}

/** A firing child in the store at one minute. */
export interface Sample {
  minute: number;
  firing: Map<string, string | undefined>; // child → scope label
}

export interface Record {
  posts: Post[][];
  samples: Sample[];
  /** Share (0..1) of the network's validators under the uptime threshold, each minute. */
  dipShare: number[];
  /** Minutes in which the incidents' alerts were silenced: a resolution then is recorded, not sent. */
  silenced: Array<{ from: number; to: number }>;
  end: number;
}

const names = new Map([...H1, ...OTHERS].map((v) => [v.nodeId, v.name]));

function checkOf(text: string): string {
  if (/reachab/i.test(text)) return 'reachability';
  if (/uptime/i.test(text)) return 'uptime';
  return 'other';
}

/** The fields of a Slack post's sections: label → value. */
function fieldsOf(blocks: unknown): Map<string, string> {
  const out = new Map<string, string>();
  for (const b of (blocks as { fields?: { text: string }[] }[] | undefined) ?? []) {
    const f = b.fields ?? [];
    for (let i = 0; i + 1 < f.length; i += 2) out.set(f[i]!.text.replace(/^\*|\*$/g, ''), f[i + 1]!.text);
  }
  return out;
}

/** An incident's scope from its line: `your group host=h1`, `network-wide validator-health/uptime` (`network-wide ?` when the line does not say). */
function scopeOf(line: string): string | undefined {
  const group = /(?:^|over: )(\w+) (\S+) on \w+[:,]/.exec(line);
  if (/network-wide on/.test(line)) return `network-wide ${/: ([\w-]+\/[\w-]+) for \d+ validator/.exec(line)?.[1] ?? '?'}`;
  return group ? `your group ${group[1]}=${group[2]}` : undefined;
}

/** A post's alerts: one, or each line of a grouped post (`• FIRING WARNING: …`). */
export function parsePost(body: { text: string; blocks?: unknown }, minute: number): Post[] {
  const head = /^\[(FIRING|RESOLVED) \w+\] ([\w-]+): (.*)/.exec(body.text);
  const lines: { firing: boolean; rule: string; text: string }[] = [];
  if (head) lines.push({ firing: head[1] === 'FIRING', rule: head[2]!, text: head[3]! });
  else {
    const sections = ((body.blocks as { text?: { text?: string } }[] | undefined) ?? []).map((b) => b.text?.text ?? '');
    for (const l of sections.flatMap((t) => t.split('\n'))) {
      const m = /^• (FIRING|RESOLVED) \w+: (.*)/.exec(l);
      if (m && !/Network baseline of/.test(m[2]!)) lines.push({ firing: m[1] === 'FIRING', rule: /NodeID-/.test(m[2]!) ? 'validator-health' : 'avawatch', text: m[2]! });
    }
    if (lines.length === 0) throw new Error(`a post not understood: ${body.text}`);
  }
  const fields = fieldsOf(body.blocks);
  return lines.map(({ firing, rule, text }) => {
    if (rule === 'avawatch') {
      let scope = scopeOf(text);
      // A lone resolution names its family in the alerts it held.
      if (scope === 'network-wide ?' && head) scope = `network-wide ${/: ([\w-]+\/[\w-]+)/.exec(fields.get('When it fired: Alerts') ?? '')?.[1] ?? '?'}`;
      if (scope === undefined) throw new Error(`an incident without its scope: ${text}`);
      return { minute, firing, child: 'incident', scope, text };
    }
    const v = /\((NodeID-\w+)\)/.exec(text);
    const name = v ? names.get(v[1]!) : undefined;
    return { minute, firing, ...(name ? { child: `${name}/${checkOf(text)}` } : {}), text };
  });
}

/** Plays the commands on a fresh world and records it; recovers everything and waits 15 minutes at the end. */
export async function play(cmds: readonly Cmd[]): Promise<Record> {
  const run = await startIncidentWorld({ networkSize: NETWORK_SIZE, tolerate: ['network-baseline'] });
  const rec: Record = { posts: run.receivers.map(() => []), samples: [], dipShare: [], silenced: [], end: 0 };
  const uptimes = Array.from({ length: NETWORK_SIZE }, () => 99.5);
  const own = new Map<string, number>(OTHERS.map((v) => [v.name, 99.5]));
  const seen = run.receivers.map(() => 0);
  const open = run.receivers.map(() => new Map<string, string>());
  let minute = 0;
  const step = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const under = uptimes.filter((u) => u < 80).length + [...own.values()].filter((u) => u < 80).length;
      rec.dipShare[minute] = under / (NETWORK_SIZE + 8);
      await run.minutes(1);
      const firing = new Map<string, string | undefined>();
      for (const a of (await run.app.store.activeAlerts())) {
        if (a.rule !== 'validator-health') continue;
        const labels = (a.condition as { labels: { [k: string]: string } }).labels;
        const name = names.get(labels['nodeId'] ?? '') ?? labels['validator'];
        firing.set(`${name}/${labels['check']}`, labels['scope']);
      }
      rec.samples.push({ minute, firing });
      run.receivers.forEach((r, j) => {
        for (const p of r.posts.slice(seen[j])) {
          const body = p.body as { text: string; blocks?: unknown };
          // The baseline's own "stale" info is no incident's business.
          if (/network-baseline:|Network baseline of/.test(body.text)) continue;
          for (const post of parsePost(body, minute)) {
            // A grouped resolution that does not name its family is the network-wide one open.
            if (post.scope === 'network-wide ?') post.scope = open[j]!.get('network') ?? post.scope;
            if (post.scope?.startsWith('network-wide') && post.firing) open[j]!.set('network', post.scope);
            rec.posts[j]!.push(post);
          }
        }
        seen[j] = r.posts.length;
      });
      minute++;
    }
  };
  const dip = (share: number, uptime: number) => {
    run.change({ networkDip: { network: 'mainnet', share, uptime } });
    const moved = Math.round((NETWORK_SIZE * share) / 100);
    for (let i = 0; i < moved; i++) uptimes[i] = uptime;
  };
  try {
    await step(2);
    for (const c of cmds) {
      if (c.t === 'reach') for (const v of c.vs) run.change({ validator: { nodeId: H1[v]!.nodeId, health: { reachability: c.up ? 100 : 0 } } });
      else if (c.t === 'uptime') {
        for (const v of c.vs) {
          run.change({ validator: { nodeId: OTHERS[v]!.nodeId, uptimePerformance: c.up ? 99.5 : 70 } });
          own.set(OTHERS[v]!.name, c.up ? 99.5 : 70);
        }
      } else if (c.t === 'dip') dip(c.share, c.uptime);
      else if (c.t === 'sweepFails') run.world.faults.push({ status: 503, body: JSON.stringify({ message: 'unavailable' }), pathMatches: '/v1/networks/mainnet/validators$', query: 'sortBy=blockIndex' });
      else if (c.t === 'silence') {
        // Silences match labels, not receivers: the incidents' alerts, for every receiver.
        const now = run.world.clock.nowMs();
        await run.app.store.addSilence({ matchers: [{ name: 'alertname', value: 'incident', regex: false }], startsAt: now, endsAt: now + c.minutes * 60_000, comment: 'fuzz', createdBy: 'fuzz', createdAt: now });
        rec.silenced.push({ from: minute, to: minute + c.minutes });
      } else await run.restart();
      await step(c.wait);
    }
    // Everything recovers, then a quiet period.
    for (const v of H1) run.change({ validator: { nodeId: v.nodeId, health: { reachability: 100 } } });
    for (const v of OTHERS) {
      run.change({ validator: { nodeId: v.nodeId, uptimePerformance: 99.5 } });
      own.set(v.name, 99.5);
    }
    dip(100, 99.5);
    await step(15);
    rec.end = minute;
    return rec;
  } finally {
    await run.close();
  }
}
