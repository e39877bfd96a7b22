import { Inject, Injectable, Logger } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import { APP_CONFIG, type AppConfig } from '../config/config.js';

/** Sends account mail by SMTP (`SMTP_URL`); without it, logs the link so a local setup still works. */
@Injectable()
export class AuthMailer {
  private readonly logger = new Logger('AuthMailer');
  private readonly transport: Transporter | null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.transport = config.smtpUrl ? nodemailer.createTransport(config.smtpUrl) : null;
  }

  async sendVerification(to: string, url: string): Promise<void> {
    if (!this.transport) {
      this.logger.log(`Email verification link for ${to}: ${url}`);
      return;
    }
    await this.transport.sendMail({
      from: this.config.mailFrom,
      to,
      subject: 'Verify your email address',
      text: `Welcome to Radio Broadcaster!\n\nConfirm your email address by opening this link (valid 24 hours):\n${url}\n`,
    });
  }
}
