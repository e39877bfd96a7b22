import type { AccountMail } from '../auth/auth.mailer.js';
import type { NoticeKind, NoticePayload } from './follow.repository.js';

/** RFC 8058 one-click unsubscribe: a mail client POSTs `List-Unsubscribe=One-Click` to the URL. */
export function unsubscribeHeaders(url: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

function when(iso: string | undefined): string {
  if (!iso) return '';
  // The reader's zone is unknown: UTC, said so; the page shows it in theirs.
  return `${new Date(iso).toUTCString().replace(' GMT', ' UTC')}`;
}

/** A notice as a mail: the station's link on a line of its own, the unsubscribe link at the end. */
export function noticeMail(
  to: string,
  kind: NoticeKind,
  p: NoticePayload,
  unsubscribeUrl: string,
): AccountMail {
  const show = p.showTitle ? `"${p.showTitle}"` : '';
  const subject =
    kind === 'live'
      ? `${p.stationName} is live now`
      : kind === 'before'
        ? `${show} on ${p.stationName} starts in 30 minutes`
        : `${show} on ${p.stationName} is starting`;
  const lead =
    kind === 'live'
      ? `${p.stationName} by @${p.broadcaster} just went live. Listen here:`
      : kind === 'before'
        ? `${show} on ${p.stationName} by @${p.broadcaster} starts in 30 minutes (${when(p.startsAt)}). Listen here:`
        : `${show} on ${p.stationName} by @${p.broadcaster} is starting now. Listen here:`;
  return {
    to,
    subject,
    text: `${lead}\n\n${p.url}\n\nYou get this mail because you follow ${p.stationName}. To stop these mails, open:\n${unsubscribeUrl}\n`,
    headers: unsubscribeHeaders(unsubscribeUrl),
  };
}

export function confirmMail(
  to: string,
  stationName: string,
  broadcaster: string,
  confirmUrl: string,
): AccountMail {
  return {
    to,
    subject: `Confirm: follow ${stationName}`,
    text: `Someone (we hope you) asked to be told by e-mail when ${stationName} by @${broadcaster} goes live on Radio Broadcaster.\n\nConfirm by opening this link (valid for 7 days):\n\n${confirmUrl}\n\nIf it was not you, ignore this mail: you will get nothing more from us.\n`,
  };
}
