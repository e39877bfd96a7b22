/**
 * A local SMTP server (the `smtp-server` library) for follower mail: keeps every message with its
 * headers (List-Unsubscribe…) and the raw source, and answers `550` at RCPT for addresses that
 * start with `bounce`, as a mailbox that does not exist does (a hard bounce).
 */
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface NoticeMail {
  to: string;
  subject: string;
  text: string;
  headers: Map<string, unknown>;
  raw: string;
}

export class NoticeMailSink {
  readonly mails: NoticeMail[] = [];
  readonly rejected: string[] = [];
  private readonly server: SMTPServer;
  private port = 0;

  constructor() {
    this.server = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      authOptional: true,
      logger: false,
      onRcptTo: (address, _session, done) => {
        if (/^bounce/i.test(address.address)) {
          this.rejected.push(address.address.toLowerCase());
          const err = new Error('5.1.1 No such user here') as Error & { responseCode: number };
          err.responseCode = 550;
          return done(err);
        }
        done();
      },
      onData: (stream, _session, done) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks);
          simpleParser(raw)
            .then((mail) => {
              const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
              this.mails.push({
                to: to?.value[0]?.address?.toLowerCase() ?? '',
                subject: mail.subject ?? '',
                text: mail.text ?? '',
                headers: mail.headers as Map<string, unknown>,
                raw: raw.toString('utf8'),
              });
              done();
            })
            .catch((err: Error) => done(err));
        });
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

  to(address: string, subject?: RegExp): NoticeMail[] {
    return this.mails.filter(
      (m) => m.to === address.toLowerCase() && (!subject || subject.test(m.subject)),
    );
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The one http(s) link on a line of its own after `after` in a mail's text. */
/** A header as sent (unfolded), e.g. `List-Unsubscribe`. */
export function rawHeader(mail: NoticeMail, name: string): string | undefined {
  const head = mail.raw.slice(0, mail.raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  const m = new RegExp(`^${name}:[ \\t]*(.*)$`, 'im').exec(head);
  return m?.[1]?.trim();
}

export function linkAfter(text: string, after: RegExp): string {
  const rest = text.slice(text.search(after));
  const m = /^(https?:\/\/\S+)$/m.exec(rest);
  if (!m) throw new Error(`no link after ${after} in: ${text}`);
  return m[1]!;
}
