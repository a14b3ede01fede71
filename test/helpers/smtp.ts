import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SmtpSink {
  port: number;
  messages: ParsedMail[];
  /** Raw DATA of each accepted message, to check headers as they went over the wire. */
  raw: string[];
  /** Answers RCPT TO of the next messages with this SMTP code and text. */
  failNext(...replies: Array<{ code: number; message: string }>): void;
  waitFor(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

/** A real SMTP server on loopback that parses and keeps every message it accepts. */
export async function startSmtpSink(auth?: { user: string; pass: string }, options: { port?: number } = {}): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  const raw: string[] = [];
  const queue: Array<{ code: number; message: string }> = [];
  const server = new SMTPServer({
    disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(login, _session, done) {
      if (auth && login.username === auth.user && login.password === auth.pass) return done(null, { user: login.username });
      return done(Object.assign(new Error('Authentication credentials invalid'), { responseCode: 535 }));
    },
    onRcptTo(_address, _session, done) {
      const reply = queue.shift();
      if (reply) return done(Object.assign(new Error(reply.message), { responseCode: reply.code }));
      return done();
    },
    onData(stream, _session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const text = Buffer.concat(chunks);
        raw.push(text.toString('utf8'));
        simpleParser(text)
          .then((mail) => {
            messages.push(mail);
            done();
          })
          .catch(done);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = (server.server.address() as AddressInfo);
  return {
    port,
    messages,
    raw,
    failNext: (...replies) => queue.push(...replies),
    async waitFor(count, timeoutMs = 10_000) {
      const end = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > end) throw new Error(`expected ${count} mail(s), got ${messages.length}`);
        // real wait: a poll step; on fake time a fake timer, which the test's settle() pumps.
        await new Promise((r) => setTimeout(r, 25));
      }
      return messages;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A TCP port that accepts connections and never says a word: a black-holed SMTP server. */
export async function startBlackHole(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createTcpServer((s) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
