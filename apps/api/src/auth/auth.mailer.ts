import { Inject, Injectable, Logger } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import { APP_CONFIG, type AppConfig } from '../config/config.js';

/** One account mail: plain text, the link on a line of its own. */
export interface AccountMail {
  to: string;
  subject: string;
  text: string;
}

/** Sends account mail by SMTP (`SMTP_URL`); without it, logs it so a local setup still works. */
@Injectable()
export class AuthMailer {
  private readonly logger = new Logger('AuthMailer');
  private readonly transport: Transporter | null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.transport = config.smtpUrl ? nodemailer.createTransport(config.smtpUrl) : null;
  }

  async send(mail: AccountMail): Promise<void> {
    if (!this.transport) {
      this.logger.log(`Mail to ${mail.to} (no SMTP_URL set): ${mail.subject}\n${mail.text}`);
      return;
    }
    await this.transport.sendMail({ from: this.config.mailFrom, ...mail });
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
