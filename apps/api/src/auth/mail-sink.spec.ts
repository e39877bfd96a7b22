/**
 * Without SMTP_URL, account mails are written as .eml files under $DATA_DIR/mail/ and the log says
 * where, never the link (tokens are never logged).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import request from 'supertest';
import { startTestApp, type TestApp } from '../../testing/test-app.js';
import { newUserBody } from '../../testing/auth-helpers.js';

/** Polls for a mail file other than the ones already seen (deadline 15 s). */
async function nextMail(dir: string, seen: Set<string>): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    let names: string[] = [];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.eml') && !seen.has(n));
    } catch {
      // Not created yet.
    }
    if (names.length) {
      seen.add(names[0]!);
      return join(dir, names[0]!);
    }
    if (Date.now() > deadline) throw new Error(`no new mail in ${dir}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('account mail with no SMTP_URL', () => {
  let t: TestApp;
  let mailDir: string;
  const lines: string[] = [];
  const seen = new Set<string>();

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        cb();
      },
    });
    t = await startTestApp({ env: { LOG_LEVEL: 'debug' }, logDestination: sink });
    expect(t.config.smtpUrl).toBeUndefined();
    mailDir = join(t.config.dataDir, 'mail');
    // The boot log says where mails go instead.
    expect(
      lines.some((l) => l.includes(`account mails are not sent but written to ${mailDir}`)),
    ).toBe(true);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The link in the mail file, and the log lines that name that file. */
  async function linkIn(path: string, page: string) {
    const mail = await simpleParser(readFileSync(path));
    const link = mail.text?.match(new RegExp(`^(\\S+${page}\\?token=(\\S+))$`, 'm'));
    expect(link).not.toBeNull();
    // Readable by the server's user only: the link is a credential.
    expect(statSync(path).mode & 0o777).toBe(0o600);
    return { mail, url: link![1]!, token: decodeURIComponent(link![2]!) };
  }

  it('writes the verification mail to $DATA_DIR/mail and logs only where, without the link', async () => {
    const body = newUserBody('sink');
    await request(t.url).post('/api/auth/sign-up/email').send(body).expect(200);
    const path = await nextMail(mailDir, seen);
    const { mail, url, token } = await linkIn(path, '/verify-email');
    expect(mail.subject).toBe('Confirm your email address');
    expect((mail.to as { text: string }).text).toBe(body.email.toLowerCase());
    expect(url.startsWith(`${t.config.publicUrl}/verify-email?token=`)).toBe(true);
    // The link works.
    await request(t.url)
      .get(`/api/auth/verify-email?token=${encodeURIComponent(token)}`)
      .set('Accept', 'application/json')
      .expect(200);

    const log = lines.join('\n');
    expect(log).not.toContain(token);
    expect(log).not.toContain(encodeURIComponent(token));
    expect(log).not.toContain(body.email.toLowerCase());
    const line = lines.find((l) => l.includes(path));
    expect(JSON.parse(line!)).toMatchObject({
      context: 'AuthMailer',
      msg: `Mail to s***@example.com (no SMTP_URL set: not sent) written to ${path}`,
    });
  });

  it('does the same for a password reset link', async () => {
    const body = newUserBody('reset');
    await request(t.url).post('/api/auth/sign-up/email').send(body).expect(200);
    await nextMail(mailDir, seen);
    await request(t.url)
      .post('/api/auth/request-password-reset')
      .send({ email: body.email })
      .expect(200);
    const path = await nextMail(mailDir, seen);
    const { mail, token } = await linkIn(path, '/reset-password');
    expect(mail.subject).toBe('Reset your password');
    expect(lines.join('\n')).not.toContain(token);
    expect(lines.some((l) => l.includes(`written to ${path}`))).toBe(true);
  });
});
