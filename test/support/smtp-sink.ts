/**
 * A local SMTP server (the `smtp-server` library) that keeps every message it receives, parsed with
 * `mailparser`: tests point SMTP_URL at it and read the mail the product sends.
 */
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SunkMail {
  to: string;
  subject: string;
  text: string;
}

export class SmtpSink {
  readonly mails: SunkMail[] = [];
  private readonly server: SMTPServer;
  private port = 0;

  constructor() {
    this.server = new SMTPServer({
      // Plain SMTP on loopback: no TLS upgrade, no login.
      disabledCommands: ['STARTTLS', 'AUTH'],
      authOptional: true,
      logger: false,
      onData: (stream, _session, done) => {
        simpleParser(stream)
          .then((mail) => {
            const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
            this.mails.push({
              to: to?.value[0]?.address ?? '',
              subject: mail.subject ?? '',
              text: mail.text ?? '',
            });
            done();
          })
          .catch((err: Error) => done(err));
      },
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as { port: number }).port;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Waits for the n-th mail (1-based) sent to `to` and returns it. */
  async nth(to: string, n: number, ms = 15_000): Promise<SunkMail> {
    const end = Date.now() + ms;
    for (;;) {
      const found = this.mails.filter((m) => m.to === to.toLowerCase());
      if (found.length >= n) return found[n - 1]!;
      if (Date.now() > end)
        throw new Error(`no mail #${n} to ${to}: ${JSON.stringify(this.mails)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The one http(s) link on a line of its own in a mail. */
export function linkIn(mail: SunkMail): string {
  const m = /^(https?:\/\/\S+)$/m.exec(mail.text);
  if (!m) throw new Error(`no link in: ${mail.text}`);
  return m[1]!;
}
