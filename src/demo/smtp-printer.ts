import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface PrintingSmtp {
  port: number;
  received: number;
  close(): Promise<void>;
}

/** A local SMTP server that prints the subject and text of each mail it accepts. */
export async function startSmtpPrinter(print: (line: string) => void): Promise<PrintingSmtp> {
  let received = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream, session, done) {
      simpleParser(stream)
        .then((mail) => {
          received++;
          const to = session.envelope.rcptTo.map((r) => r.address).join(', ');
          const body = (mail.text ?? '').trim().split('\n').slice(2, -2).map((l) => `         ${l}`).join('\n');
          print(`email ← to ${to}: ${mail.subject ?? ''}\n${body}`);
          done();
        })
        .catch(done);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    get received() {
      return received;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
