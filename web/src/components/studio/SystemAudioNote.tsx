/**
 * What "Tab, window or screen" can share, per browser and system, from the vendors' documentation
 * (Chrome's screen-sharing controls and getDisplayMedia notes, MDN's compatibility data). The studio
 * asks for system audio where it is offered (`systemAudio: 'include'`, `windowAudio: 'system'`); the
 * browser decides what its picker shows.
 */
const ROWS: { who: string; what: string; match: (ua: string) => boolean }[] = [
  {
    who: 'Chrome or Edge on Windows and ChromeOS',
    what: 'a tab’s audio, or everything the computer plays when you share a window or the entire screen (tick “Also share system audio”).',
    match: (ua) => /Windows|CrOS/.test(ua) && /Chrome\//.test(ua),
  },
  {
    who: 'Chrome or Edge on macOS and Linux',
    what: 'a tab’s audio. To send an app such as a DJ program, route it into a virtual audio device (BlackHole, Loopback, PipeWire) and choose Microphone.',
    match: (ua) => /Mac OS X|Linux/.test(ua) && !/Android|CrOS/.test(ua) && /Chrome\//.test(ua),
  },
  {
    who: 'Firefox and Safari',
    what: 'no audio from screen sharing. Choose Microphone.',
    match: (ua) => /Firefox\//.test(ua) || (/Safari\//.test(ua) && !/Chrome\//.test(ua)),
  },
  {
    who: 'Phones and tablets',
    what: 'no screen sharing in the browser. Choose Microphone (a USB interface works too).',
    match: (ua) => /Android|iPhone|iPad/.test(ua),
  },
];

export function SystemAudioNote() {
  const ua = typeof navigator === 'undefined' ? '' : navigator.userAgent;
  const mine = ROWS.find((r) => r.match(ua));
  return (
    <details className="system-audio-note" data-testid="system-audio-note">
      <summary>
        What can be shared?
        {mine ? (
          <span className="muted small"> This browser: {mine.what.split('.')[0]}.</span>
        ) : null}
      </summary>
      <ul>
        {ROWS.map((r) => (
          <li key={r.who} data-current={r === mine || undefined}>
            <strong>{r.who}:</strong> {r.what}
          </li>
        ))}
      </ul>
    </details>
  );
}
