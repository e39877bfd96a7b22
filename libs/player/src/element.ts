import { PlayerApi, PlayerErrorTag } from './api.js';
import {
  type Theme,
  normalizeTheme,
  parseAutoplay,
  parseStationRef,
  stationPageUrl,
  trimBase,
} from './attributes.js';
import { JOIN_FAILED_MESSAGE, ListeningClient } from './client.js';
import { PLAYER_STATES } from './player-machine.js';
import { OFF_AIR, broadcasterLabel } from './labels.js';
import { claimMediaSession, releaseMediaSession, updateMediaSession } from './media-session.js';
import { LevelViz } from './level-viz.js';
import { applyStyles } from './styles.js';
import type { PlayerState, Station as RadioStation, StationRef } from './types.js';

/** The API origin baked in at build time for copies served from a public CDN (see build.mjs). */
declare const __RB_API_BASE__: string | undefined;

const CDN_HOSTS = [
  'unpkg.com',
  'cdn.jsdelivr.net',
  'fastly.jsdelivr.net',
  'esm.sh',
  'cdn.skypack.dev',
  'ga.jspm.io',
  'cdnjs.cloudflare.com',
];

/**
 * Where this script came from: `document.currentScript` while the classic script runs, else the ESM
 * module URL. Read once at load; never touches the DOM when there is none.
 */
function detectScriptOrigin(): string {
  try {
    const script = typeof document !== 'undefined' ? document.currentScript : null;
    if (script && 'src' in script && script.src) return new URL(script.src).origin;
  } catch {
    // not a classic script
  }
  try {
    const url = new URL(import.meta.url);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  } catch {
    // no module URL (IIFE build)
  }
  return '';
}

const SCRIPT_ORIGIN = detectScriptOrigin();
const BUILT_IN_API_BASE = typeof __RB_API_BASE__ === 'string' ? __RB_API_BASE__ : '';

/**
 * The API base when the element has no `api-base`: the origin that served the script, except a public
 * CDN, where the API origin baked in at build time is used. '' means the page's own origin.
 */
export function defaultApiBase(scriptOrigin = SCRIPT_ORIGIN, builtIn = BUILT_IN_API_BASE): string {
  if (!scriptOrigin) return builtIn;
  const host = new URL(scriptOrigin).hostname;
  if (CDN_HOSTS.includes(host)) return builtIn || scriptOrigin;
  return scriptOrigin;
}

/** What the player says, in one place (the same words as the site where both show the state). */
const TEXT = {
  loading: 'Loading station…',
  idleLive: 'Live now. Press play to listen.',
  connecting: 'Connecting…',
  reconnecting: 'Reconnecting…',
  live: 'Playing live',
  liveHttp: 'Playing (HTTP stream: a live connection was not possible here)',
  offline: 'Station offline',
  offlineWaiting: 'Station offline. Playback starts when it goes live.',
  blocked: 'Click to play',
  notAllowed: "This station can't be played on this site.",
  notFound: "Station not found. This station may have been deleted or doesn't exist.",
  network: 'Connection failed. Please check your internet connection and try again.',
  joinFailed: JOIN_FAILED_MESSAGE,
  retry: 'Retry',
  missing: 'No station set. Use station="username/station-slug".',
  private: 'This is a private station. Open your invite link, or enter its password.',
  wrongPassword: 'Wrong password. Try again.',
  revoked: 'Your access to this private station was revoked.',
  nowPrivate: (seconds: number) =>
    `This station is now private: listening ends in ${seconds} s. Open your invite link, or enter its password.`,
  listen: 'Listen',
} as const;

const ICONS = {
  play: 'M8 5v14l11-7z',
  pause: 'M6 5h4v14H6zm8 0h4v14h-4z',
  volume: 'M3 9v6h4l5 5V4L7 9H3zm13.5 3A4.5 4.5 0 0 0 14 8v8a4.5 4.5 0 0 0 2.5-4z',
  muted:
    'M3 9v6h4l5 5V4L7 9H3zm13.6 3 2.7-2.7-1.4-1.4-2.7 2.7-2.7-2.7-1.4 1.4 2.7 2.7-2.7 2.7 1.4 1.4 2.7-2.7 2.7 2.7 1.4-1.4z',
  person:
    'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm0 2c-3.3 0-8 1.7-8 4.5V21h16v-2.5c0-2.8-4.7-4.5-8-4.5z',
} as const;

type Attrs = Record<string, string>;

function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.append(...children);
  return el;
}

function icon(d: string): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', d);
  svg.append(path);
  return svg;
}

function setText(node: Element, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

// Safe to import without a DOM: the class only extends HTMLElement where one exists.
const Base = (typeof HTMLElement === 'undefined' ? class {} : HTMLElement) as typeof HTMLElement;

interface Parts {
  card: HTMLDivElement;
  badgeText: HTMLSpanElement;
  count: HTMLSpanElement;
  countText: HTMLSpanElement;
  countLabel: HTMLSpanElement;
  name: HTMLAnchorElement;
  by: HTMLParagraphElement;
  np: HTMLDivElement;
  art: HTMLDivElement;
  artImg: HTMLImageElement | null;
  artLetter: HTMLSpanElement;
  viz: HTMLCanvasElement;
  track: HTMLParagraphElement;
  artist: HTMLParagraphElement;
  message: HTMLParagraphElement;
  play: HTMLButtonElement;
  playIcon: SVGPathElement;
  playLabel: HTMLSpanElement;
  mute: HTMLButtonElement;
  muteIcon: SVGPathElement;
  volume: HTMLInputElement;
  controls: HTMLDivElement;
  audio: HTMLAudioElement;
  /** A private station's password form. */
  unlock: HTMLFormElement;
  password: HTMLInputElement;
}

/**
 * `<radio-player>`: a live station player.
 *
 * Attributes (each also a property):
 * - `station` — required, `username/station-slug`. Changing it switches station at once (the old session
 *   is left cleanly; playback continues on the new station if it was playing).
 * - `theme` — `light` or `dark` (default); anything else is dark. Applies at once.
 * - `autoplay` — `true` to start playing on load (default `false`). Browsers often refuse sound without
 *   a click; the player then shows 'Click to play'.
 * - `api-base` — origin of the Radio Broadcaster API, e.g. `https://radio.example`. Default: the origin
 *   the script was loaded from (for public CDN copies, the API origin set at build time).
 *
 * Methods `play()` and `pause()`; a `statechange` event (`detail: { state }`) on every state change;
 * a `transportchange` event (`detail: { transport }`: 'http' while the HTTP stream stands in for a
 * WebRTC connection that has not come, 'webrtc' when it has); the `transport` property says which.
 * Styling: CSS custom properties `--radio-player-accent`, `--radio-player-background`,
 * `--radio-player-radius`, and `::part()` names `container`, `station-name`, `now-playing`, `message`,
 * `play-button`, `volume`.
 */
export class RadioPlayerElement extends Base {
  static readonly observedAttributes = ['station', 'theme', 'autoplay', 'api-base', 'invite'];

  private parts: Parts | null = null;
  private client: ListeningClient | null = null;
  /** Re-renders the "now private" countdown every second while it runs. */
  private noticeTick: ReturnType<typeof setInterval> | undefined;
  private clientBase = '';
  private ref: StationRef | null = null;
  /** The station's answer to "may this site play it?" (`null` while asking), asked once per station. */
  private playableHere: { id: string; allowed: boolean | null } | null = null;
  /** Who is listening (its own chunk and the player's socket), when the player is tall enough (issue 27). */
  private presence: import('./presence.js').PlayerPresence | null = null;
  /** The chat chunk, mounted when the owner turned player chat on (issue 27). */
  private chat: { destroy(): void } | null = null;
  private readonly onPageHide = () => {
    this.resumeOnShow = this.client?.playing ?? false;
    this.client?.leaveOnUnload();
  };
  private readonly onPageShow = (e: PageTransitionEvent) => {
    if (e.persisted && this.resumeOnShow) this.client?.play();
  };
  private resumeOnShow = false;
  private viz: LevelViz | null = null;

  /** `username/station-slug`. */
  get station(): string {
    return this.getAttribute('station') ?? '';
  }
  set station(value: string) {
    this.setAttribute('station', value);
  }
  /** `light` or `dark`; reading gives the normalised value. */
  get theme(): Theme {
    return normalizeTheme(this.getAttribute('theme'));
  }
  set theme(value: string) {
    this.setAttribute('theme', value);
  }
  get autoplay(): boolean {
    return parseAutoplay(this.getAttribute('autoplay'));
  }
  set autoplay(value: boolean) {
    this.setAttribute('autoplay', String(Boolean(value)));
  }
  get apiBase(): string {
    return trimBase(this.getAttribute('api-base')?.trim() || defaultApiBase());
  }
  set apiBase(value: string) {
    this.setAttribute('api-base', value);
  }
  /** A private station's invite token (from its invite link's `?invite=`). */
  get invite(): string {
    return this.getAttribute('invite') ?? '';
  }
  set invite(value: string) {
    this.setAttribute('invite', value);
  }
  /** How the audio arrives: 'webrtc', or 'http' (the stream, while WebRTC has not connected). */
  get transport(): 'webrtc' | 'http' {
    return this.client?.transportKind ?? 'webrtc';
  }
  /** The listening state (see ListeningClient). */
  get state(): PlayerState {
    return this.refusedHere() ? 'not-allowed' : (this.client?.state ?? 'idle');
  }

  /** The site asked and was told it may not play this station. */
  private refusedHere(): boolean {
    const id = this.client?.station?.id;
    return !!id && this.playableHere?.id === id && this.playableHere.allowed === false;
  }

  play(): void {
    if (!this.refusedHere()) this.client?.play();
  }
  pause(): void {
    this.client?.pause();
  }

  connectedCallback(): void {
    if (!this.parts) this.parts = this.build();
    this.applyTheme();
    this.connectClient();
    window.addEventListener('pagehide', this.onPageHide);
    window.addEventListener('pageshow', this.onPageShow);
    if (this.autoplay) this.client?.play();
    this.render();
  }

  disconnectedCallback(): void {
    window.removeEventListener('pagehide', this.onPageHide);
    window.removeEventListener('pageshow', this.onPageShow);
    this.disconnectClient();
    this.viz?.stop();
    this.render();
  }

  attributeChangedCallback(name: string, oldValue: string | null, value: string | null): void {
    if (!this.parts || !this.isConnected || oldValue === value) return;
    switch (name) {
      case 'theme':
        this.applyTheme();
        break;
      case 'station':
        this.ref = parseStationRef(value);
        if (this.client) this.client.setStation(value ?? '');
        this.render();
        break;
      case 'api-base':
        if (this.apiBase !== this.clientBase) {
          const wasPlaying = this.client?.playing ?? false;
          this.disconnectClient();
          this.connectClient();
          if (wasPlaying) this.client?.play();
          this.render();
        }
        break;
      case 'invite':
        if (value) this.client?.setAccess({ invite: value });
        break;
      // 'autoplay' only matters when the element is connected.
    }
  }

  private connectClient(): void {
    if (this.client || !this.parts) return;
    this.ref = parseStationRef(this.getAttribute('station'));
    this.clientBase = this.apiBase;
    const client = new ListeningClient({
      station: this.getAttribute('station') ?? '',
      apiBase: this.clientBase,
      audio: this.parts.audio,
    });
    this.client = client;
    const invite = this.getAttribute('invite');
    if (invite) client.setAccess({ invite });
    client.on('state', ({ state }) => {
      if (state === 'live') {
        claimMediaSession(this, {
          play: () => this.client?.play(),
          pause: () => this.client?.pause(),
          stop: () => this.client?.pause(),
        });
      }
      this.render();
      this.dispatchEvent(new CustomEvent('statechange', { detail: { state } }));
    });
    client.on('station', () => {
      this.checkPlayable();
      this.render();
    });
    client.on('transport', (transport) => {
      this.render();
      this.dispatchEvent(new CustomEvent('transportchange', { detail: { transport } }));
    });
    client.on('privateNotice', (notice) => {
      // the countdown, second by second, until the notice ends
      clearInterval(this.noticeTick);
      this.noticeTick = notice ? setInterval(() => this.render(), 1000) : undefined;
      this.render();
    });
    client.start();
  }

  /** Asks whether this site may play the station before Play is offered (a refusal shows no Play). */
  private checkPlayable(): void {
    const id = this.client?.station?.id;
    if (!id || this.playableHere?.id === id) return;
    const asked = { id, allowed: null as boolean | null };
    this.playableHere = asked;
    void new PlayerApi(this.clientBase)
      .playable(id)
      .catch(() => true)
      .then((allowed) => {
        asked.allowed = allowed;
        if (this.playableHere === asked) this.render();
        if (allowed) void this.maybeTogether(id);
      });
  }

  /**
   * Who is listening and chat (issue 27), each its own chunk: presence (with socket.io) where the
   * player is at least 380 px tall, chat where the owner turned it on and the player is at least
   * 300×480.
   */
  private async maybeTogether(id: string): Promise<void> {
    this.dropTogether();
    const box = this.getBoundingClientRect();
    if (box.height < 380 || box.width < 280 || !this.parts) return;
    const base = this.clientBase;
    const chunk = (name: string) => new URL(`/${name}`, base || location.href).href;
    try {
      const mod = (await import(
        /* @vite-ignore */ chunk('player-presence.mjs')
      )) as typeof import('./presence.js');
      if (this.client?.station?.id !== id || !this.shadowRoot || this.presence) return;
      const presence = mod.mountPresence(this.shadowRoot, this.parts.card, {
        apiBase: base,
        stationId: id,
        playing: this.client?.playing ?? false,
      });
      this.presence = presence;
      if (box.height < 480 || box.width < 300) return;
      const res = await fetch(`${base}/api/stations/${encodeURIComponent(id)}/chat?limit=1`, {
        credentials: 'omit',
      });
      const body = (await res.json()) as { settings?: { enabled?: boolean; playerChat?: boolean } };
      if (!body.settings?.enabled || !body.settings.playerChat) return;
      const chat = (await import(
        /* @vite-ignore */ chunk('player-chat.mjs')
      )) as typeof import('./chat.js');
      if (this.presence !== presence || !this.shadowRoot) return;
      this.chat = chat.mountChat(this.shadowRoot, this.parts.card, {
        apiBase: base,
        stationId: id,
        presence,
      });
    } catch {
      // No presence or chat: the player plays on.
    }
  }

  private dropTogether(): void {
    this.chat?.destroy();
    this.chat = null;
    this.presence?.destroy();
    this.presence = null;
  }

  private disconnectClient(): void {
    clearInterval(this.noticeTick);
    this.noticeTick = undefined;
    this.dropTogether();
    this.client?.destroy();
    this.client = null;
    releaseMediaSession(this);
  }

  private applyTheme(): void {
    if (!this.parts) return;
    const theme = this.theme;
    this.parts.card.classList.toggle('light', theme === 'light');
    this.parts.card.classList.toggle('dark', theme === 'dark');
  }

  private build(): Parts {
    const root = this.attachShadow({ mode: 'open' });
    applyStyles(root);
    const playPath = icon(ICONS.play);
    const mutePath = icon(ICONS.volume);
    const parts: Parts = {
      card: h('div', { class: 'card dark', part: 'container', role: 'region' }),
      badgeText: h('span', {}, '…'),
      count: h('span', { class: 'count', hidden: '' }),
      countText: h('span'),
      countLabel: h('span', { class: 'sr' }),
      name: h('a', {
        class: 'name',
        part: 'station-name',
        target: '_blank',
        rel: 'noopener noreferrer',
      }),
      by: h('p', { class: 'by' }),
      np: h('div', { class: 'np', part: 'now-playing', hidden: '' }),
      art: h('div', { class: 'art', part: 'artwork', 'aria-hidden': 'true' }),
      artImg: null,
      artLetter: h('span', { class: 'art-letter' }),
      viz: h('canvas', { class: 'viz', part: 'visualiser', 'aria-hidden': 'true' }),
      track: h('p', { class: 'track' }),
      artist: h('p', { class: 'artist' }),
      message: h('p', { class: 'message', part: 'message', role: 'status', 'aria-live': 'polite' }),
      play: h(
        'button',
        { class: 'play', part: 'play-button', type: 'button', 'aria-label': 'Play' },
        playPath,
      ),
      playIcon: playPath.firstChild as SVGPathElement,
      playLabel: h('span', { class: 'play-label', hidden: '' }, TEXT.blocked),
      mute: h(
        'button',
        { class: 'mute', type: 'button', 'aria-label': 'Mute', 'aria-pressed': 'false' },
        mutePath,
      ),
      muteIcon: mutePath.firstChild as SVGPathElement,
      volume: h('input', {
        class: 'volume',
        part: 'volume',
        type: 'range',
        min: '0',
        max: '100',
        step: '5',
        value: '100',
        'aria-label': 'Volume',
      }),
      audio: h('audio', { preload: 'none' }),
      controls: h('div', { class: 'controls', part: 'controls' }),
      unlock: h('form', { class: 'unlock', part: 'unlock', hidden: '' }),
      password: h('input', {
        type: 'password',
        name: 'password',
        autocomplete: 'current-password',
        required: '',
        'aria-label': 'Station password',
        placeholder: 'Station password',
      }),
    };
    parts.unlock.append(
      parts.password,
      h('button', { type: 'submit', class: 'unlock-button' }, TEXT.listen),
    );
    parts.controls.append(parts.play, parts.mute, parts.volume);
    parts.play.append(parts.playLabel);
    parts.count.append(icon(ICONS.person), parts.countText, parts.countLabel);
    parts.np.append(h('p', { class: 'np-label' }, 'Now playing'), parts.track, parts.artist);
    parts.card.append(
      h(
        'div',
        { class: 'top' },
        h('span', { class: 'badge' }, h('span', { class: 'dot' }), parts.badgeText),
        parts.count,
      ),
      h(
        'div',
        { class: 'body' },
        parts.art,
        h('div', { class: 'main' }, parts.name, parts.by, parts.np),
      ),
      parts.viz,
      parts.message,
      parts.unlock,
      parts.controls,
      parts.audio,
    );
    parts.unlock.addEventListener('submit', (e) => {
      e.preventDefault();
      const password = parts.password.value;
      if (!password) return;
      parts.password.value = '';
      this.client?.setAccess({ password });
    });
    parts.art.append(parts.artLetter);
    root.append(parts.card);
    this.viz = new LevelViz(parts.viz);

    parts.play.addEventListener('click', () => {
      if (this.client?.playing) this.client.pause();
      else this.client?.play();
    });
    parts.mute.addEventListener('click', () => {
      parts.audio.muted = !parts.audio.muted;
      this.renderVolume();
    });
    parts.volume.addEventListener('input', () => {
      parts.audio.volume = Math.min(1, Math.max(0, Number(parts.volume.value) / 100));
      if (parts.audio.muted && parts.audio.volume > 0) parts.audio.muted = false;
      this.renderVolume();
    });
    return parts;
  }

  private renderVolume(): void {
    const p = this.parts;
    if (!p) return;
    const muted = p.audio.muted || p.audio.volume === 0;
    p.mute.setAttribute('aria-pressed', String(p.audio.muted));
    p.mute.setAttribute('aria-label', p.audio.muted ? 'Unmute' : 'Mute');
    p.muteIcon.setAttribute('d', muted ? ICONS.muted : ICONS.volume);
    p.volume.setAttribute(
      'aria-valuetext',
      muted ? 'muted' : `${Math.round(p.audio.volume * 100)}%`,
    );
  }

  private render(): void {
    const p = this.parts;
    if (!p) return;
    const client = this.client;
    const station = client?.station ?? null;
    const asked = this.playableHere?.id === station?.id ? this.playableHere : null;
    // Refused here (asked up front, or by the join): the message, and no control that cannot work.
    const state: PlayerState = this.state;
    const ref = this.ref;
    const stationLive = station?.status === 'live';
    const stationReconnecting = station?.status === 'reconnecting';
    const playing = client?.playing ?? false;
    this.presence?.playing(playing);

    p.unlock.hidden = state !== 'private';
    for (const s of PLAYER_STATES) {
      p.card.classList.toggle(s, s === state && s !== 'live');
    }
    p.card.classList.toggle('live', stationLive && state !== 'not-allowed' && state !== 'error');
    p.card.setAttribute(
      'aria-label',
      `Radio player: ${station?.name ?? ref?.slug ?? 'no station'}`,
    );
    p.card.classList.toggle('waiting', stationReconnecting);
    setText(
      p.badgeText,
      stationLive ? 'Live' : stationReconnecting ? 'Reconnecting' : station ? OFF_AIR : '…',
    );

    // Station name and link.
    const displayName = station?.name ?? (ref ? `${ref.username}/${ref.slug}` : 'Radio player');
    setText(p.name, displayName);
    if (ref) p.name.href = stationPageUrl(this.clientBase || location.origin, ref);
    else p.name.removeAttribute('href');
    setText(p.by, station ? `by ${broadcasterLabel(station.broadcaster)}` : '');
    this.renderArt(station);

    // Listener count.
    if (station) {
      const n = station.viewerCount;
      p.count.hidden = false;
      setText(p.countText, String(n));
      const label = n === 1 ? 'listener' : 'listeners';
      setText(p.countLabel, ` ${label}`);
      p.count.title = `${n} ${label}`;
    } else {
      p.count.hidden = true;
    }

    // Now playing.
    const np = station?.nowPlaying ?? null;
    p.np.hidden = !np || state === 'not-allowed' || state === 'error';
    setText(p.track, np?.track ?? '');
    setText(p.artist, [np?.artist, np?.album].filter(Boolean).join(' · '));

    setText(p.message, this.message(state));

    // Controls.
    // a join that failed twice: the listener may try again (the play button says Retry)
    const retry = state === 'error' && client?.error?.tag === PlayerErrorTag.JoinFailed;
    const showPause = playing && state !== 'blocked';
    p.playIcon.setAttribute('d', showPause ? ICONS.pause : ICONS.play);
    p.play.setAttribute(
      'aria-label',
      state === 'blocked' ? TEXT.blocked : retry ? TEXT.retry : showPause ? 'Pause' : 'Play',
    );
    p.card.classList.toggle('retry', retry);
    setText(p.playLabel, retry ? TEXT.retry : TEXT.blocked);
    p.playLabel.hidden = state !== 'blocked' && !retry;
    p.play.disabled =
      !client || (state === 'error' && !retry) || state === 'not-allowed' || state === 'private';
    // No controls once refused (`.not-allowed .controls` in the styles).
    // Play is offered once the site is known to be allowed (the controls keep their place meanwhile).
    p.card.classList.toggle('checking', !!station && asked?.allowed === null);
    this.renderVolume();

    if (client) updateMediaSession(this, station, state === 'live', this.clientBase || undefined);
    // The level animation follows the stream actually playing here (none over HTTP).
    const stream = p.audio.srcObject;
    p.card.classList.toggle('playing', state === 'live' && playing);
    this.viz?.sync(state === 'live' && playing && stream instanceof MediaStream ? stream : null);
  }

  /** The station's cover (or the broadcaster's picture; else its initial), shown in players 400 px wide and up (340 px inside the card's padding). */
  private renderArt(station: RadioStation | null): void {
    const p = this.parts;
    if (!p) return;
    const src = station ? (station.coverUrl ?? station.broadcaster.avatarUrl) : null;
    const url = src ? new URL(src, this.clientBase || location.origin).href : null;
    if (url) {
      if (!p.artImg) {
        p.artImg = h('img', { alt: '', decoding: 'async' });
        p.art.append(p.artImg);
      }
      if (p.artImg.getAttribute('src') !== url) p.artImg.src = url;
    } else if (p.artImg) {
      p.artImg.remove();
      p.artImg = null;
    }
    setText(p.artLetter, (station?.name ?? this.ref?.slug ?? '').trim().charAt(0).toUpperCase());
  }

  private message(state: PlayerState): string {
    const client = this.client;
    const error = client?.error ?? null;
    const endsAt = client?.privateNoticeEndsAt ?? null;
    if (endsAt !== null && (state === 'live' || state === 'connecting'))
      return TEXT.nowPrivate(Math.max(0, Math.ceil((endsAt - Date.now()) / 1000)));
    switch (state) {
      case 'idle':
        return client?.station ? TEXT.idleLive : TEXT.loading;
      case 'connecting':
        return client?.reconnecting ? TEXT.reconnecting : TEXT.connecting;
      case 'live':
        return client?.station?.status === 'reconnecting'
          ? TEXT.reconnecting
          : client?.viaHttp
            ? TEXT.liveHttp
            : TEXT.live;
      case 'offline':
        return client?.playing ? TEXT.offlineWaiting : TEXT.offline;
      case 'blocked':
        return TEXT.blocked;
      case 'not-allowed':
        return TEXT.notAllowed;
      case 'private':
        switch (error?.tag) {
          case PlayerErrorTag.WrongPassword:
            return TEXT.wrongPassword;
          case PlayerErrorTag.GrantRevoked:
            return TEXT.revoked;
          case PlayerErrorTag.InviteInvalid:
            return `${errorMessageOf(error)} ${TEXT.private}`;
          case PlayerErrorTag.RateLimited:
            return errorMessageOf(error);
          case undefined:
          default:
            return TEXT.private;
        }
      case 'error':
        switch (error?.tag) {
          case PlayerErrorTag.InvalidStation:
            return this.getAttribute('station')?.trim()
              ? `Invalid station "${this.getAttribute('station')}". Use station="username/station-slug".`
              : TEXT.missing;
          case PlayerErrorTag.StationNotFound:
            return TEXT.notFound;
          case PlayerErrorTag.NetworkError:
            return TEXT.network;
          case PlayerErrorTag.JoinFailed:
            return TEXT.joinFailed;
          case undefined:
          default:
            return error?.status === 404 ? TEXT.notFound : (error?.message ?? 'An error occurred');
        }
    }
  }
}

/** The server's own message from an API error ('This invite link has expired'). */
function errorMessageOf(error: { message: string } | null): string {
  const json = error?.message.slice(error.message.indexOf('{'));
  try {
    const body = JSON.parse(json ?? '') as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON
  }
  return error?.message ?? '';
}

declare global {
  interface HTMLElementTagNameMap {
    'radio-player': RadioPlayerElement;
  }
}
