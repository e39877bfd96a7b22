/**
 * Who is listening, in `<radio-player>` (issue 27): a chunk of its own (`player-presence.mjs`) that the
 * element loads when the station may play on this site and the player is tall enough. It holds the
 * player's one socket.io connection (pushed `presence:update`, as on the station page); the chat
 * chunk, when the owner turns player chat on, uses the same connection. Nothing is stored (no
 * cookies, no storage) and every text is set with textContent.
 */
import { io, type Socket } from 'socket.io-client';

interface Listener {
  name: string;
  username: string | null;
  avatarUrl: string | null;
  state: 'listening' | 'chat';
  kind: 'user' | 'guest';
}
interface PresenceUpdate {
  stationId: string;
  count: number;
  listeners: Listener[];
  guests: number;
}
type Ack = { ok: boolean };

const CSS = `
.who{flex:none;display:flex;align-items:center;gap:4px 10px;flex-wrap:wrap;max-height:58px;overflow:hidden;font-size:12px;color:var(--muted)}
.who[hidden]{display:none}
.who ul{display:contents;list-style:none;margin:0;padding:0}
.who li{display:inline-flex;align-items:center;gap:5px;min-width:0;max-width:100%}
.who li[data-state=chat]{opacity:.75}
.who .n{color:var(--fg);font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:140px}
.who .av{position:relative;flex:none;width:22px;height:22px;border-radius:50%;overflow:hidden;display:grid;place-items:center;background:var(--panel);color:var(--fg);font-weight:700;font-size:11px;border:1px solid var(--line)}
.who .av img{position:absolute;inset:0;width:100%;height:100%;object-fit:cover}
`;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Adds `css` to the shadow root (constructable sheet, or a `<style>` where there is none). */
export function addStyles(root: ShadowRoot, css: string): void {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  } catch {
    root.appendChild(el('style', {}, css));
  }
}

export interface PlayerPresence {
  /** The player's socket, in the station's room once `joined` has fired. */
  socket: Socket;
  /** Calls `fn` after each (re)join of the station's room. */
  joined(fn: () => void): void;
  /** Whether this player is playing the station (a named guest shows "listening" or "in chat"). */
  playing(on: boolean): void;
  destroy(): void;
}

/** Mounts "who is listening" under the card's top row; `apiBase` is the API origin. */
export function mountPresence(
  root: ShadowRoot,
  card: HTMLElement,
  opts: { apiBase: string; stationId: string; playing: boolean },
): PlayerPresence {
  addStyles(root, CSS);
  const { stationId } = opts;
  const section = el('section', {
    class: 'who',
    part: 'presence',
    'aria-label': 'Who is listening',
    hidden: '',
  });
  const list = el('ul');
  const guests = el('span', { class: 'guests', part: 'presence-guests' });
  section.append(list, guests);
  card.firstElementChild?.after(section);

  const render = (p: PresenceUpdate) => {
    if (p.stationId !== stationId) return;
    const people = [
      ...p.listeners.filter((l) => l.state === 'listening'),
      ...p.listeners.filter((l) => l.state === 'chat'),
    ];
    list.replaceChildren(
      ...people.map((l) => {
        const li = el('li', { part: 'presence-person', 'data-state': l.state });
        const av = el('span', { class: 'av', 'aria-hidden': 'true' }, initial(l.name));
        if (l.avatarUrl && /^https?:/i.test(l.avatarUrl)) {
          // No credentials and no referrer: the player sets nothing and tells nothing.
          const img = el('img', {
            alt: '',
            crossorigin: 'anonymous',
            referrerpolicy: 'no-referrer',
          });
          img.addEventListener('error', () => img.remove());
          img.src = l.avatarUrl;
          av.append(img);
        }
        li.append(
          av,
          el('span', { class: 'n' }, l.name),
          el('span', { class: 's' }, l.state === 'listening' ? 'listening' : 'in chat'),
        );
        return li;
      }),
    );
    guests.textContent = p.guests > 0 ? `${p.guests} ${p.guests === 1 ? 'guest' : 'guests'}` : '';
    section.hidden = people.length === 0 && p.guests === 0;
  };

  let playing = opts.playing;
  let inRoom = false;
  const onJoin: (() => void)[] = [];
  const socket: Socket = io(opts.apiBase || undefined, {
    transports: ['websocket'],
    withCredentials: false,
  });
  socket.on('connect', () => {
    inRoom = false;
    socket.emit('station:join', { stationId }, (ack: Ack) => {
      if (!ack?.ok) return;
      inRoom = true;
      if (playing) socket.emit('presence:state', { stationId, playing });
      for (const fn of onJoin) fn();
    });
  });
  let pushed = false;
  socket.on('presence:update', (p: PresenceUpdate) => {
    pushed = true;
    render(p);
  });
  void fetch(`${opts.apiBase}/api/stations/${encodeURIComponent(stationId)}/presence`, {
    credentials: 'omit',
  })
    .then((r) => (r.ok ? (r.json() as Promise<PresenceUpdate>) : null))
    .then((p) => p && !pushed && render(p))
    .catch(() => undefined);

  return {
    socket,
    joined(fn) {
      onJoin.push(fn);
      if (inRoom) fn();
    },
    playing(on) {
      if (on === playing) return;
      playing = on;
      if (inRoom) socket.emit('presence:state', { stationId, playing });
    },
    destroy() {
      socket.disconnect();
      section.remove();
    },
  };
}

function initial(name: string): string {
  return ([...name.trim()][0] ?? '?').toUpperCase();
}
