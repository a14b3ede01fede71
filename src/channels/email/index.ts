import type { Transporter } from 'nodemailer';
import { z } from 'zod';
import { durationMs, port, secretString } from '../../base/fields.js';
import { distinctive, type Secret } from '../../base/secret.js';
import { DeliveryError, type AlertMessage, type Channel, type Notifier, type ReceiverBase } from '../types.js';
import { emailMessage } from './message.js';

export interface EmailReceiver extends ReceiverBase {
  type: 'email';
  smtp: {
    host: string;
    port?: number | undefined;
    secure: boolean;
    auth?: { user: string; pass?: Secret | undefined } | undefined;
  };
  from: string;
  to: string[];
  timeout: number;
  minInterval: number;
}

const address = z.string().regex(/^[^\s@<>]+@[^\s@<>]+$/, 'expected an email address such as ops@example.com');

export const emailChannel: Channel<EmailReceiver> = {
  type: 'email',
  schema: z.strictObject({
    smtp: z.strictObject({
      host: z.string(),
      port: port.optional(),
      /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
      secure: z.boolean().default(false),
      auth: z.strictObject({ user: z.string().min(1), pass: secretString.optional(), passFile: z.string().min(1).optional() }).optional(),
    }),
    from: address,
    to: z.union([address.transform((a) => [a]), z.array(address).min(1)]),
    /** Connect, greeting and each SMTP command: seconds, not nodemailer's two minutes. */
    timeout: durationMs.default(10_000),
    minInterval: durationMs.default(0),
  }),
  disabledReason: (r) => (r.smtp.host.trim() === '' ? 'smtp.host is empty' : undefined),
  digests: true,
  secretFields: [{ path: ['smtp', 'auth'], key: 'pass', url: false }],
  create: (r) => new EmailNotifier(r),
};

class EmailNotifier implements Notifier {
  readonly type = 'email';
  readonly name: string;
  readonly minIntervalMs: number;
  readonly timeoutMs: number;
  /** Made at the first send: nodemailer loads only in a process that mails (not in `check`, say). */
  #transport: Promise<Transporter> | undefined;
  /** The current attempt's message has gone out in full (nodemailer logs it): the server may have it. */
  #sent = false;

  constructor(private readonly receiver: EmailReceiver) {
    this.name = receiver.name;
    this.minIntervalMs = receiver.minInterval;
    // Connect, greeting and each command may each take the timeout (email): allow for all.
    this.timeoutMs = receiver.timeout * 3;
  }

  #transporter(): Promise<Transporter> {
    const { smtp, timeout } = this.receiver;
    return (this.#transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        host: smtp.host,
        port: smtp.port ?? (smtp.secure ? 465 : 587),
        secure: smtp.secure,
        ...(smtp.auth ? { auth: { user: smtp.auth.user, pass: smtp.auth.pass?.reveal() ?? '' } } : {}),
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout,
        dnsTimeout: timeout,
        logger: this.#sentWatcher(),
      }),
    ));
  }

  async send(alerts: readonly AlertMessage[], signal: AbortSignal): Promise<void> {
    this.#sent = false;
    const content = emailMessage(alerts);
    const sending = this.#transporter().then((t) => t.sendMail({ from: this.receiver.from, to: this.receiver.to, ...content }));
    const aborted = new Promise<never>((_, reject) => {
      const onAbort = () => reject(new DeliveryError(`email receiver "${this.name}": aborted`, 'aborted', true));
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      void sending.finally(() => signal.removeEventListener('abort', onAbort)).catch(() => undefined);
    });
    try {
      await Promise.race([sending, aborted]);
    } catch (err) {
      throw err instanceof DeliveryError ? err : classify(this.name, err, this.#sent);
    }
  }

  /**
   * A logger that only listens for nodemailer's "<N bytes encoded mime message>" line: the
   * message went out in full. Everything else it logs is dropped (it may quote the server).
   */
  #sentWatcher() {
    const ignore = (): void => undefined;
    return {
      trace: ignore,
      debug: ignore,
      info: (entry: unknown) => {
        if ((entry as { tnx?: unknown } | undefined)?.tnx === 'message') this.#sent = true;
      },
      warn: ignore,
      error: ignore,
      fatal: ignore,
    };
  }
}

/**
 * SMTP 4xx is worth retrying, 5xx is final; connection trouble is retried. A timeout or a
 * lost connection after the message went out (`sent`) may have been delivered.
 */
function classify(name: string, err: unknown, sent: boolean): DeliveryError {
  const e = err as { responseCode?: number; code?: string; response?: string; message?: string };
  const prefix = `email receiver "${name}"`;
  if (typeof e.responseCode === 'number') {
    const code = e.responseCode;
    // The server's reply text (SMTP replies are meant to be read), limited to plain words:
    // anything that looks like a token (a credential or an address echoed back) is left out.
    const said = (e.response ?? '')
      .replace(/[^\w .,:;()[\]/-]/g, '')
      .split(/\s+/)
      .map((word) => (distinctive(word.replace(/^[.,:;()[\]]+|[.,:;()[\]]+$/g, '')) ? '…' : word))
      .join(' ')
      .slice(0, 120);
    return new DeliveryError(`${prefix}: SMTP ${code} ${said}`.trim(), `smtp_${code}`, code >= 400 && code < 500);
  }
  const after = sent ? ' after the message was sent (it may have been delivered)' : '';
  if (e.code === 'ETIMEDOUT') return new DeliveryError(`${prefix}: no answer in time${after}`, 'timeout', true, undefined, sent);
  // nodemailer says ESOCKET for a refused connection; its message names the cause and address.
  const cause = /\b(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)\b/.exec(e.message ?? '')?.[1];
  return new DeliveryError(`${prefix}: ${cause ? `${cause} (${e.code ?? 'network'})` : (e.code ?? 'connection failed')}${after}`, 'network', true, undefined, sent);
}
