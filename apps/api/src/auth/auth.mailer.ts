import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Transporter } from 'nodemailer';
import { lazy } from '../common/lazy.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';

/** One account mail: plain text, the link on a line of its own. */
export interface AccountMail {
  to: string;
  subject: string;
  text: string;
  /** Extra headers (e.g. `List-Unsubscribe`), one line each. */
  headers?: Record<string, string>;
}

/** `ann@example.com` → `a***@example.com`: enough to tell mails apart in a log, not the address. */
export function redactAddress(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 1 ? '***' : `${address[0]}***${address.slice(at)}`;
}

/** One header value on one line (our subjects and validated addresses hold no line breaks). */
const headerValue = (v: string) => v.replace(/[\r\n]+/g, ' ');

/**
 * The mail as an RFC 5322 message (.eml): UTF-8 plain text sent as 8bit, so the link stays whole
 * and readable in the file (nodemailer would fold it in quoted-printable).
 */
export function toEml(mail: AccountMail, from: string, date = new Date()): string {
  const subject = /^[\x20-\x7e]*$/.test(mail.subject)
    ? mail.subject
    : `=?UTF-8?B?${Buffer.from(mail.subject).toString('base64')}?=`;
  const headers = [
    `From: ${headerValue(from)}`,
    `To: ${headerValue(mail.to)}`,
    `Subject: ${headerValue(subject)}`,
    `Date: ${date.toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${randomBytes(12).toString('hex')}@radiobroadcaster.local>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    ...Object.entries(mail.headers ?? {}).map(([k, v]) => `${k}: ${headerValue(v)}`),
  ];
  return `${headers.join('\r\n')}\r\n\r\n${mail.text.replace(/\r?\n/g, '\r\n')}`;
}

/**
 * Sends account mail by SMTP (`SMTP_URL`). Without it (a local setup), each mail is written as an
 * `.eml` file under `$DATA_DIR/mail/` (readable by this user only) and the log says where, never
 * the link: verification and reset links are credentials, and tokens are never logged.
 */
@Injectable()
export class AuthMailer implements OnApplicationBootstrap {
  private readonly logger = new Logger('AuthMailer');
  /** The SMTP transport, made at the first mail (nodemailer is loaded then, not at start-up). */
  private readonly transport: (() => Promise<Transporter>) | null;
  /** Where mails go without SMTP_URL. */
  readonly sinkDir: string;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const smtpUrl = config.smtpUrl;
    this.transport = smtpUrl
      ? lazy(async () => (await import('nodemailer')).default.createTransport(smtpUrl))
      : null;
    this.sinkDir = join(config.dataDir, 'mail');
  }

  onApplicationBootstrap(): void {
    if (!this.transport)
      this.logger.log(`No SMTP_URL: account mails are not sent but written to ${this.sinkDir}`);
  }

  async send(mail: AccountMail): Promise<void> {
    if (!this.transport) {
      const path = await this.writeToSink(mail);
      this.logger.log(
        `Mail to ${redactAddress(mail.to)} (no SMTP_URL set: not sent) written to ${path}`,
      );
      return;
    }
    await (await this.transport()).sendMail({ from: this.config.mailFrom, ...mail });
  }

  private async writeToSink(mail: AccountMail): Promise<string> {
    await mkdir(this.sinkDir, { recursive: true, mode: 0o700 });
    const now = new Date();
    const name = `${now.toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}.eml`;
    const path = join(this.sinkDir, name);
    // Written aside and renamed into place (as maildir does): whoever watches the folder for new
    // `.eml` files never reads one half-written.
    const part = join(this.sinkDir, `.${name}.part`);
    await writeFile(part, toEml(mail, this.config.mailFrom, now), { mode: 0o600, flag: 'wx' });
    await rename(part, path);
    return path;
  }

  sendVerification(to: string, url: string): Promise<void> {
    return this.send({
      to,
      subject: 'Confirm your email address',
      text: `Welcome to Radio Broadcaster!\n\nConfirm your email address by opening this link (valid for 24 hours):\n\n${url}\n\nIf you did not create an account, ignore this mail.\n`,
    });
  }

  sendPasswordReset(to: string, url: string): Promise<void> {
    return this.send({
      to,
      subject: 'Reset your password',
      text: `Someone asked to reset the password of your Radio Broadcaster account.\n\nChoose a new password here (the link works once, for 1 hour):\n\n${url}\n\nIf it was not you, ignore this mail: your password stays as it is.\n`,
    });
  }

  sendEmailChange(to: string, url: string): Promise<void> {
    return this.send({
      to,
      subject: 'Confirm your new email address',
      text: `You asked to use this address for your Radio Broadcaster account.\n\nConfirm it by opening this link (valid for 24 hours):\n\n${url}\n\nUntil then, your account keeps its current address.\n`,
    });
  }
}
