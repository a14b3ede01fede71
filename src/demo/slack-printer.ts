import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AlertMessage } from '../base/types.js';

/** One alert as a printed message showed it. */
export interface PrintedAlert {
  kind: string;
  status: AlertMessage['status'];
}

export interface PrintingReceiver {
  url: string;
  received: number;
  /** Every alert of the messages printed so far, in order. */
  alerts: readonly PrintedAlert[];
  close(): Promise<void>;
}

/** The parts of a Block Kit payload the printer reads (src/channels/slack/message.ts writes them). */
interface SlackBody {
  text?: string;
  blocks?: Array<{ type?: string; text?: { text?: string }; fields?: Array<{ text: string }>; elements?: Array<{ text?: string }> }>;
}

const STATUS_WORDS: Record<string, AlertMessage['status']> = { FIRING: 'firing', RESOLVED: 'resolved', EVENT: 'event' };
/** A group's text: the worst alert's icon and severity (a single alert's starts "[FIRING …]"). */
const GROUP_HEAD = /^(?:🔴|🟠|🔵|✅) [A-Z]+: /u;

/** A Slack-compatible incoming webhook on loopback that prints each message it accepts. */
export async function startSlackPrinter(print: (line: string) => void): Promise<PrintingReceiver> {
  let received = 0;
  const alerts: PrintedAlert[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: SlackBody;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SlackBody;
      } catch {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid_payload');
        return;
      }
      received++;
      alerts.push(...alertsOf(body));
      print(messageLines(body).join('\n'));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/services/DEMO/DEMO/demo`,
    get received() {
      return received;
    },
    alerts,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The message as the terminal shows it: its text, then a group's lines or an alert's fields. */
export function messageLines(body: SlackBody): string[] {
  const raw = body.text ?? '';
  const blocks = body.blocks ?? [];
  // A group lists its alerts in a section; a single alert's section (a long summary) repeats its text.
  const listed = GROUP_HEAD.test(raw) ? blocks.flatMap((b) => (b.type === 'section' && b.text?.text ? b.text.text.split('\n') : [])) : [];
  // Fields come in pairs: the name (*Node*), then its value.
  const texts = blocks.flatMap((b) => b.fields ?? []).map((f) => f.text);
  const fields = texts.flatMap((t, i) => (i % 2 === 0 ? [`${t.replace(/^\*(.*)\*$/, '$1')}: ${texts[i + 1] ?? ''}`] : []));
  const lines = [`slack ← ${unescape(raw)}`, ...[...listed, ...fields].map((l) => `         ${unescape(l)}`)];
  // Chain text reaches Slack escaped; shown unescaped here, so say what Slack does with it.
  if ([raw, ...listed, ...texts].some((t) => /&lt;|&gt;/.test(t))) lines.push('         (< and > arrived escaped: Slack shows them as text; no mention, no link)');
  return lines;
}

/**
 * The alerts one message holds, read back from what slack/message.ts writes: the kind from
 * its context line, the status from its text, or from each listed line of a group. A group
 * is one rule (groupBy: rule), so one kind; past its ten listed lines it names none.
 */
export function alertsOf(body: SlackBody): PrintedAlert[] {
  const context = body.blocks?.find((b) => b.type === 'context')?.elements?.[0]?.text ?? '';
  const kind = context.split(' · ')[1] ?? 'unknown';
  const text = body.text ?? '';
  const heads = GROUP_HEAD.test(text)
    ? (body.blocks ?? []).flatMap((b) => (b.type === 'section' && b.text?.text ? b.text.text.split('\n') : [])).map((l) => /^• (\w+) /.exec(l)?.[1])
    : [/^\[(\w+) /.exec(text)?.[1]];
  return heads.flatMap((word) => {
    const status = word === undefined ? undefined : STATUS_WORDS[word];
    return status ? [{ kind, status }] : [];
  });
}

function unescape(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}
