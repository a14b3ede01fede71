import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PrintingReceiver {
  url: string;
  received: number;
  close(): Promise<void>;
}

/** A Slack-compatible incoming webhook on loopback that prints each message it accepts. */
export async function startSlackPrinter(print: (line: string) => void): Promise<PrintingReceiver> {
  let received = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text?: string; blocks?: Array<{ fields?: Array<{ text: string }> }> };
        received++;
        // Fields come in pairs: the name (*Node*), then its value.
        const texts = (body.blocks ?? []).flatMap((b) => b.fields ?? []).map((f) => f.text);
        const fields = texts.flatMap((t, i) => (i % 2 === 0 ? [`${t.replace(/^\*(.*)\*$/, '$1')}: ${texts[i + 1] ?? ''}`] : []));
        print(`slack ← ${unescape(body.text ?? '')}\n${fields.map((f) => `         ${unescape(f)}`).join('\n')}`);
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      } catch {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid_payload');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/services/DEMO/DEMO/demo`,
    get received() {
      return received;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function unescape(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}
