/**
 * Following and the schedule in Debian's Chromium against the real API serving the built app: a
 * guest follows from the station page by e-mail and confirms from the mail; a signed-in listener
 * follows and picks what to be told; the owner schedules a weekly show in the studio (an
 * overlapping one is refused where they typed it) and sees the follower count; the profile lists
 * the upcoming show; the embed counts down and steps aside when the station goes live; the go-live
 * mail has its one-click unsubscribe. Needs `npm run build`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { simpleParser } from 'mailparser';
import type { Browser } from 'playwright-core';
import { StationsService } from '../../apps/api/src/stations/stations.service.js';
import type { TestApp, TestUser } from '../../apps/api/testing/test-app.js';
import { signUp } from '../../apps/api/testing/test-app.js';
import { launchChromium, screenshotPath, shootBothSizes, signInAt } from '../support/browser.js';
import { createStation, startWebApp, watchProblems } from '../support/web-app.js';
import { waitUntil } from '../support/wait.js';

describe('follow and schedule in the browser', () => {
  let app: TestApp;
  let browser: Browser;
  let owner: TestUser;
  let fan: TestUser;
  let mailDir: string;
  const seen = new Set<string>();

  /** The next mail the product wrote to $DATA_DIR/mail (no SMTP_URL) to `to`. */
  async function nextMail(to: string, subject: string) {
    let found: string | undefined;
    await waitUntil(
      () => {
        let names: string[] = [];
        try {
          names = readdirSync(mailDir).filter((n) => n.endsWith('.eml') && !seen.has(n));
        } catch {
          return false;
        }
        for (const n of names.sort()) {
          const text = readFileSync(join(mailDir, n), 'utf8');
          if (text.includes(`To: ${to}\r\n`) && text.includes(`Subject: ${subject}\r\n`)) {
            seen.add(n);
            found = n;
            return true;
          }
        }
        return false;
      },
      20_000,
      `a mail to ${to}`,
    );
    const raw = readFileSync(join(mailDir, found!), 'utf8');
    return { raw, mail: await simpleParser(raw) };
  }

  beforeAll(async () => {
    app = await startWebApp();
    mailDir = join(app.config.dataDir, 'mail');
    browser = await launchChromium();
    owner = await signUp(app.url);
    fan = await signUp(app.url);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('schedules, follows, counts down and tells followers', async () => {
    const { station } = await createStation(app.url, owner, { name: 'Harbour Lights FM' });
    const stationPath = `/${owner.username}/${station.slug}`;

    // ---- the owner schedules a weekly show in the studio ----
    const studio = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const studioProblems = watchProblems(studio);
    await signInAt(studio, app.url, owner, `/studio?station=${station.id}`);
    const editor = studio.getByTestId('schedule-editor');
    await editor.waitFor({ timeout: 30_000 });
    await editor.getByTestId('schedule-empty').waitFor();
    const tomorrow = new Date(Date.now() + 86_400_000);
    const date = tomorrow.toISOString().slice(0, 10);
    await editor.getByTestId('schedule-title').fill('Harbour Sessions');
    await editor.getByTestId('schedule-date').fill(date);
    await editor.getByTestId('schedule-time').fill('21:00');
    await editor.getByTestId('schedule-duration').fill('90');
    await editor.getByTestId('schedule-zone').selectOption('Europe/Lisbon');
    await editor.getByTestId('schedule-weekly').check();
    await editor.getByTestId('schedule-save').click();
    await editor.getByTestId('schedule-show').first().waitFor();
    expect(await editor.getByTestId('schedule-show').first().textContent()).toContain(
      'Harbour Sessions',
    );
    expect(await editor.getByTestId('schedule-show').first().textContent()).toContain(
      'Europe/Lisbon',
    );
    // An overlapping show is refused where it was typed.
    await editor.getByTestId('schedule-title').fill('Clash');
    await editor.getByTestId('schedule-date').fill(date);
    await editor.getByTestId('schedule-time').fill('21:30');
    await editor.getByTestId('schedule-duration').fill('30');
    await editor.getByTestId('schedule-zone').selectOption('Europe/Lisbon');
    await editor.getByTestId('schedule-save').click();
    const err = editor.getByTestId('schedule-error');
    await err.waitFor();
    expect(await err.textContent()).toMatch(/overlaps "Harbour Sessions"/);
    await editor.getByTestId('schedule-title').fill('');
    await shootBothSizes(studio, 'follow-schedule-editor', editor);

    // ---- a guest follows from the station page, by e-mail ----
    const guestPage = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const guestProblems = watchProblems(guestPage);
    await guestPage.goto(`${app.url}${stationPath}`);
    await guestPage.getByTestId('next-show').waitFor({ timeout: 30_000 });
    expect(await guestPage.getByTestId('next-show').textContent()).toMatch(
      /^Next live in .+ — Harbour Sessions$/,
    );
    await guestPage.getByTestId('follow-button').click();
    await guestPage.getByTestId('follow-email').fill('night.owl@example.com');
    await shootBothSizes(guestPage, 'follow-station-page-guest-form');
    await guestPage.getByTestId('follow-email-submit').click();
    await guestPage.getByTestId('follow-sent').waitFor();
    expect(await guestPage.getByTestId('follow-sent').textContent()).toContain(
      'night.owl@example.com',
    );
    const confirm = await nextMail('night.owl@example.com', 'Confirm: follow Harbour Lights FM');
    const link = /^(http\S+\/api\/follow\/confirm\?token=\S+)$/m.exec(confirm.mail.text ?? '')![1]!;
    await guestPage.goto(link);
    await guestPage.getByRole('button', { name: 'Confirm' }).click();
    await guestPage.getByRole('heading', { name: 'You now follow Harbour Lights FM' }).waitFor();
    await shootBothSizes(guestPage, 'follow-confirmed');

    // ---- a signed-in listener follows and asks for reminders ----
    const fanPage = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const fanProblems = watchProblems(fanPage);
    await signInAt(fanPage, app.url, fan, stationPath);
    const button = fanPage.getByTestId('follow-button');
    await button.waitFor({ timeout: 30_000 });
    expect(await button.textContent()).toBe('Follow');
    await button.click();
    await fanPage.getByText('✓ Following').waitFor();
    await fanPage.getByTestId('follow-settings').locator('summary').click();
    await fanPage.getByTestId('follow-setting-beforeShow').check();
    await waitUntil(
      async () =>
        (
          (await (
            await fetch(`${app.url}/api/stations/follow/${station.id}`, { headers: fan.auth })
          ).json()) as { settings: { beforeShow: boolean } }
        ).settings.beforeShow,
      15_000,
      'the reminder switch saved',
    );
    await shootBothSizes(fanPage, 'follow-station-page-following');

    // ---- the owner sees how many, not who ----
    await studio.reload();
    const followers = studio.getByTestId('followers-count');
    await followers.waitFor({ timeout: 30_000 });
    expect(await followers.textContent()).toBe('2 followers');
    await shootBothSizes(studio, 'follow-studio-followers', studio.getByTestId('studio-followers'));
    // The podcast's address, for podcast apps.
    expect(await studio.getByTestId('podcast-feed-url').textContent()).toBe(
      `${app.url}${stationPath}/podcast.xml`,
    );

    // ---- the profile lists the upcoming show ----
    const profile = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await profile.goto(`${app.url}/${owner.username}`);
    await profile.getByTestId('profile-show').first().waitFor({ timeout: 30_000 });
    expect(await profile.getByTestId('profile-show').first().textContent()).toContain(
      'Harbour Sessions on Harbour Lights FM',
    );
    await shootBothSizes(profile, 'follow-profile-upcoming');

    // ---- the embed counts down, offers e-mail, and steps aside when live ----
    const embed = await browser.newPage({ viewport: { width: 480, height: 400 } });
    await embed.goto(`${app.url}/embed${stationPath}`);
    const embedNext = embed.getByTestId('next-show');
    await embedNext.waitFor({ timeout: 30_000 });
    expect(await embed.getByTestId('follow-button').textContent()).toBe('Get an e-mail when live');
    await embed.screenshot({ path: screenshotPath('follow-embed-countdown-480x400') });
    // Following from the embed: by e-mail (a foreign site cannot sign our users in).
    await embed.getByTestId('follow-button').click();
    await embed.getByTestId('follow-email').fill('embed.fan@example.com');
    await embed.getByTestId('follow-email-submit').click();
    await embed.getByTestId('follow-sent').waitFor();
    const embedConfirm = await nextMail(
      'embed.fan@example.com',
      'Confirm: follow Harbour Lights FM',
    );
    expect(embedConfirm.mail.text).toMatch(/\/api\/follow\/confirm\?token=/);

    await app.app.get(StationsService).transition(station.id, 'live', true, true);
    await embedNext.waitFor({ state: 'detached', timeout: 30_000 });

    // ---- exactly one go-live mail each, with its one-click unsubscribe ----
    const golive = await nextMail('night.owl@example.com', 'Harbour Lights FM is live now');
    expect(golive.mail.subject).toBe('Harbour Lights FM is live now');
    expect(golive.raw).toMatch(
      /^List-Unsubscribe: <http\S+\/api\/follow\/unsubscribe\?token=\S+>$/m,
    );
    expect(golive.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
    const fanMail = await nextMail(fan.email.toLowerCase(), 'Harbour Lights FM is live now');
    expect(fanMail.mail.subject).toBe('Harbour Lights FM is live now');
    // The mail as a mail client shows it.
    const view = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    await view.setContent(
      `<body style="font:15px system-ui;margin:2rem;max-width:46rem"><p><b>From:</b> ${esc(golive.mail.from?.text ?? '')}<br><b>To:</b> night.owl@example.com<br><b>Subject:</b> ${esc(golive.mail.subject ?? '')}<br><b>List-Unsubscribe-Post:</b> List-Unsubscribe=One-Click</p><hr><pre style="white-space:pre-wrap;font:15px system-ui">${esc(golive.mail.text ?? '')}</pre></body>`,
    );
    await view.screenshot({ path: screenshotPath('follow-golive-mail-1280x800'), fullPage: true });
    await view.setViewportSize({ width: 390, height: 844 });
    await view.screenshot({ path: screenshotPath('follow-golive-mail-390x844'), fullPage: true });

    expect(studioProblems).toEqual([]);
    expect(guestProblems).toEqual([]);
    expect(fanProblems).toEqual([]);
  }, 180_000);
});
