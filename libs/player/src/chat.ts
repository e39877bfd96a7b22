/**
 * The player's chat (issue 27): a separate chunk (`player-chat.mjs`) that `<radio-player>` loads only
 * when the station's owner turned player chat on and the element is big enough. Guests only (a
 * foreign site cannot know our users): the guest identity is held in memory, nothing is stored
 * (no cookies, no storage), and every text is set with textContent. It rides on the presence chunk's
 * socket.io connection (`player-presence.mjs`), so it bundles no socket.io of its own.
 */
import type { PlayerPresence } from './presence.js';

interface ChatMessage {
  id: string;
  stationId: string;
  author: { name: string; username: string | null; kind: string };
  text: string;
  sentAt: string;
}
type Ack = { ok: boolean; error?: string; message?: unknown; name?: string; guestToken?: string };

const CSS = `
.chat{display:flex;flex-direction:column;gap:6px;min-height:0;flex:1 1 0;border-top:1px solid var(--line);padding-top:8px}
.chat .log{flex:1 1 auto;min-height:40px;display:flex;flex-direction:column}
.chat ol{list-style:none;margin:0;padding:0;overflow:auto;flex:1 1 auto;min-height:40px;display:flex;flex-direction:column;gap:3px}
.chat li{overflow-wrap:anywhere}
.chat b{margin-right:4px}
.chat .g{color:var(--muted)}
.chat .o{color:var(--accent)}
.chat form{display:flex;gap:6px}
.chat input{flex:1;min-width:0;font:inherit;color:var(--fg);background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:6px 8px}
.chat button{font:inherit;font-weight:600;color:var(--on-accent);background:var(--accent);border:0;border-radius:8px;padding:6px 10px;cursor:pointer}
.chat .err{color:var(--accent);font-size:12px;margin:0;min-height:1em}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
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

export interface PlayerChat {
  destroy(): void;
}

/** Mounts the chat into the player's card; `apiBase` is the API origin, `stationId` its station. */
export function mountChat(
  root: ShadowRoot,
  card: HTMLElement,
  opts: { apiBase: string; stationId: string; presence: PlayerPresence },
): PlayerChat {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  } catch {
    root.appendChild(el('style', {}, CSS));
  }
  const { stationId } = opts;
  const section = el('section', { class: 'chat', part: 'chat', 'aria-label': 'Chat' });
  const log = el('div', {
    class: 'log',
    role: 'log',
    'aria-live': 'polite',
    'aria-label': 'Chat messages',
  });
  const list = el('ol');
  log.append(list);
  const form = el('form');
  const label = el('label', { class: 'sr', for: 'rp-chat-input' }, 'Your name in the chat');
  const input = el('input', {
    id: 'rp-chat-input',
    maxlength: '32',
    placeholder: 'Pick a name to chat',
    autocomplete: 'off',
    part: 'chat-input',
  });
  const button = el('button', { type: 'submit', part: 'chat-send' }, 'Join');
  const error = el('p', { class: 'err', role: 'alert', part: 'chat-error' });
  form.append(label, input, button);
  section.append(log, form, error);
  card.append(section);

  let name: string | null = null;
  const seen = new Set<string>();
  const add = (m: ChatMessage) => {
    if (m.stationId !== stationId || seen.has(m.id)) return;
    seen.add(m.id);
    const li = el('li', { 'data-id': m.id, part: 'chat-message' });
    const who = el(
      'b',
      { class: m.author.kind === 'guest' ? 'g' : m.author.kind === 'owner' ? 'o' : '' },
      m.author.name,
    );
    li.append(who, document.createTextNode(m.text));
    list.append(li);
    while (list.children.length > 100) list.firstElementChild?.remove();
    list.scrollTop = list.scrollHeight;
  };
  const { socket } = opts.presence;
  opts.presence.joined(() => {
    error.textContent = '';
    if (name) socket.emit('chat:hello', { stationId, name });
    void fetch(`${opts.apiBase}/api/stations/${encodeURIComponent(stationId)}/chat?limit=100`, {
      credentials: 'omit',
    })
      .then((r) => r.json() as Promise<{ messages: ChatMessage[] }>)
      .then((h) => h.messages.forEach(add))
      .catch(() => undefined);
  });
  const onError = () => {
    error.textContent = 'Chat could not connect.';
  };
  const onDeleted = ({ id }: { id: string }) =>
    list.querySelector(`[data-id="${CSS_ESCAPE(id)}"]`)?.remove();
  const onCleared = (x: { stationId: string }) => {
    if (x.stationId === stationId) list.replaceChildren();
  };
  socket.on('connect_error', onError);
  socket.on('chat:message', add);
  socket.on('chat:deleted', onDeleted);
  socket.on('chat:cleared', onCleared);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const value = input.value.trim();
    if (!value) return;
    if (!name) {
      socket.emit('chat:hello', { stationId, name: value }, (ack: Ack) => {
        if (!ack?.ok) return void (error.textContent = String(ack?.message ?? 'Try another name'));
        name = ack.name ?? value;
        error.textContent = '';
        input.value = '';
        input.placeholder = `Message as ${name}`;
        label.textContent = `Message as ${name}`;
        input.setAttribute('maxlength', '500');
        button.textContent = 'Send';
      });
      return;
    }
    socket.emit('chat:send', { stationId, text: value }, (ack: Ack) => {
      if (!ack?.ok) return void (error.textContent = String(ack?.message ?? 'Not sent'));
      error.textContent = '';
      input.value = '';
    });
  });
  return {
    destroy() {
      socket.off('connect_error', onError);
      socket.off('chat:message', add);
      socket.off('chat:deleted', onDeleted);
      socket.off('chat:cleared', onCleared);
      section.remove();
    },
  };
}

/** Message ids are UUIDs; anything else never matches. */
function CSS_ESCAPE(id: string): string {
  return /^[0-9a-f-]{36}$/i.test(id) ? id : '-';
}
