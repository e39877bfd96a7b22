import {
  CHAT_LIMITS,
  type ChatMessage,
  type PresenceUpdate,
  REACTION_KINDS,
  type ReactionKind,
  type Station,
} from '@radiobroadcaster/contracts';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { type FormEvent, useEffect, useMemo, useRef, useState } from 'react';
import { toast } from 'sonner';
import { apiFetch } from '../../lib/api';
import { sessionQueryOptions } from '../../queries/session.queries';
import { Avatar } from '../StationArt';
import { useTogether } from './useTogether';
import './together.css';

export const REACTION_EMOJI: Record<ReactionKind, string> = {
  heart: '❤️',
  fire: '🔥',
  clap: '👏',
  laugh: '😂',
  wow: '😮',
};
const REACTION_LABEL: Record<ReactionKind, string> = {
  heart: 'Heart',
  fire: 'Fire',
  clap: 'Applause',
  laugh: 'Laugh',
  wow: 'Wow',
};

const IGNORED_KEY = 'rb-chat-ignored';

function authorKey(m: ChatMessage): string {
  return m.author.username ? `u:${m.author.username}` : `g:${m.author.name}`;
}

/** Links are text unless the owner allows them; then plain http(s) links, marked as user content. */
export function MessageText({ text, links }: { text: string; links: boolean }) {
  if (!links) return <>{text}</>;
  const parts = text.split(/(https?:\/\/[^\s<>"']+)/g);
  return (
    <>
      {parts.map((p, i) =>
        i % 2 ? (
          <a key={i} href={p} rel="nofollow noopener noreferrer ugc" target="_blank">
            {p}
          </a>
        ) : (
          p
        ),
      )}
    </>
  );
}

export function PresenceSummary({ presence }: { presence: PresenceUpdate | null }) {
  if (!presence) return null;
  const listening = presence.listeners.filter((l) => l.state === 'listening');
  const inChat = presence.listeners.filter((l) => l.state === 'chat');
  return (
    <div className="presence" data-testid="presence">
      <p className="presence-count">
        <strong data-testid="presence-count">{presence.count}</strong>{' '}
        {presence.count === 1 ? 'listening' : 'listening'}
        {presence.guests > 0 ? (
          <span className="muted" data-testid="presence-guests">
            {' '}
            · {presence.guests} {presence.guests === 1 ? 'guest' : 'guests'}
          </span>
        ) : null}
      </p>
      {listening.length || inChat.length ? (
        <ul className="presence-list" aria-label="Who is here">
          {[...listening, ...inChat].map((l) => (
            <li
              key={`${l.kind}:${l.username ?? l.name}`}
              data-testid="presence-person"
              data-state={l.state}
            >
              <Avatar
                user={{ name: l.name, username: l.username ?? l.name, avatarUrl: l.avatarUrl }}
                size={24}
              />
              <span className="presence-name">{l.name}</span>
              <span className="presence-state muted small">
                {l.state === 'listening' ? 'listening' : 'in chat'}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** Floating reactions; under reduced motion, a calm line of counts instead. */
function Bursts({ burst }: { burst: ReturnType<typeof useTogether>['burst'] }) {
  const [floaters, setFloaters] = useState<{ id: number; kind: ReactionKind; x: number }[]>([]);
  const [totals, setTotals] = useState<Partial<Record<ReactionKind, number>>>({});
  const seq = useRef(0);
  useEffect(() => {
    if (!burst) return;
    setTotals((t) => {
      const next = { ...t };
      for (const [k, n] of Object.entries(burst.counts))
        next[k as ReactionKind] = (next[k as ReactionKind] ?? 0) + (n ?? 0);
      return next;
    });
    const add: { id: number; kind: ReactionKind; x: number }[] = [];
    for (const [k, n] of Object.entries(burst.counts))
      for (let i = 0; i < Math.min(n ?? 0, 6); i++)
        add.push({ id: seq.current++, kind: k as ReactionKind, x: 10 + Math.random() * 80 });
    setFloaters((f) => [...f, ...add].slice(-24));
    const ids = new Set(add.map((a) => a.id));
    const t = setTimeout(() => setFloaters((f) => f.filter((x) => !ids.has(x.id))), 2200);
    return () => clearTimeout(t);
  }, [burst]);
  return (
    <>
      <div className="bursts" aria-hidden="true">
        {floaters.map((f) => (
          <span key={f.id} className="burst" style={{ left: `${f.x}%` }}>
            {REACTION_EMOJI[f.kind]}
          </span>
        ))}
      </div>
      <p className="reaction-totals muted small" data-testid="reaction-totals">
        {REACTION_KINDS.filter((k) => totals[k]).map((k) => (
          <span key={k}>
            {REACTION_EMOJI[k]} {totals[k]}
          </span>
        ))}
      </p>
    </>
  );
}

export function ChatMessageItem({
  m,
  links,
  actions,
}: {
  m: ChatMessage;
  links: boolean;
  actions?: React.ReactNode;
}) {
  const time = new Date(m.sentAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return (
    <li className="chat-msg" data-testid="chat-message" data-message-id={m.id}>
      <span className={`chat-author kind-${m.author.kind}`}>
        {m.author.name}
        {m.author.kind === 'owner' ? <span className="chat-badge">Host</span> : null}
        {m.author.kind === 'moderator' ? <span className="chat-badge">Mod</span> : null}
        {m.author.kind === 'guest' ? <span className="sr-only"> (guest)</span> : null}
      </span>{' '}
      <span className="chat-text" data-testid="chat-text">
        <MessageText text={m.text} links={links} />
      </span>
      <time className="chat-time muted small" dateTime={m.sentAt}>
        {time}
      </time>
      {actions}
    </li>
  );
}

/** The station page's chat, presence and reactions. */
export function ChatPanel({ station }: { station: Station }) {
  const together = useTogether(station.id);
  const { messages, pinned, settings, presence, burst, me, setMe, hello, send, react } = together;
  const session = useQuery(sessionQueryOptions());
  const user = session.data?.user ?? null;
  const [ignored, setIgnored] = useState<string[]>(() => {
    try {
      return JSON.parse(localStorage.getItem(IGNORED_KEY) ?? '[]') as string[];
    } catch {
      return [];
    }
  });
  const [text, setText] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [waitUntil, setWaitUntil] = useState(0);
  /** The wait is slow mode's, as the last accepted message's ack said. */
  const [slowWait, setSlowWait] = useState(false);
  const [now, setNow] = useState(Date.now());
  const listRef = useRef<HTMLOListElement>(null);

  useEffect(() => {
    if (user && !me) setMe({ name: user.name, kind: 'user' });
  }, [user, me, setMe]);
  useEffect(() => {
    if (waitUntil <= Date.now()) return;
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, [waitUntil]);
  const shown = useMemo(
    () => messages.filter((m) => !ignored.includes(authorKey(m))),
    [messages, ignored],
  );
  useEffect(() => {
    const el = listRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [shown.length]);

  const remaining = Math.max(0, Math.ceil((waitUntil - now) / 1000));
  const ignore = (m: ChatMessage) => {
    const next = [...ignored, authorKey(m)];
    setIgnored(next);
    try {
      localStorage.setItem(IGNORED_KEY, JSON.stringify(next));
    } catch {
      // Kept for this page only.
    }
    toast.success(`You no longer see messages from ${m.author.name}`);
  };
  const report = async (m: ChatMessage) => {
    try {
      await apiFetch('/api/stations/chat/report', 'POST', {
        stationId: station.id,
        messageId: m.id,
      });
      toast.success('Reported to the station’s owner');
    } catch {
      toast.error('Could not report the message');
    }
  };

  const onSend = async (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) return;
    const ack = await send(text).catch(() => null);
    if (!ack) return setError('The message did not go out. Check your connection.');
    if (ack.ok) {
      setText('');
      setError(null);
      // the ack says what slow mode applies (the room's settings push may not be here yet)
      const wait = ack.slowModeSeconds ?? settings?.slowModeSeconds ?? 0;
      setWaitUntil(wait ? Date.now() + wait * 1000 : 0);
      setSlowWait(wait > 0);
      setNow(Date.now());
      return;
    }
    setError(ack.message);
    setSlowWait(false);
    if (ack.retryAfterSeconds) {
      setWaitUntil(Date.now() + ack.retryAfterSeconds * 1000);
      setNow(Date.now());
    }
  };
  const onHello = async (e: FormEvent) => {
    e.preventDefault();
    const ack = await hello(name).catch(() => null);
    if (!ack) return setError('Could not reach the chat. Check your connection.');
    setError(ack.ok ? null : ack.message);
  };

  const chatOn = settings?.enabled ?? true;
  return (
    <section className="card together" aria-labelledby="chat-title" data-testid="chat-panel">
      <div className="together-head">
        <h2 id="chat-title">Live chat</h2>
        <PresenceSummary presence={presence} />
      </div>
      {pinned ? (
        <div className="chat-pinned" data-testid="chat-pinned">
          <span className="eyebrow">Pinned</span> <strong>{pinned.author.name}</strong>{' '}
          <MessageText text={pinned.text} links={settings?.linksAllowed ?? false} />
        </div>
      ) : null}
      {chatOn ? (
        <>
          <div role="log" aria-live="polite" aria-label="Chat messages">
            <ol className="chat-list" ref={listRef} data-testid="chat-list">
              {shown.length === 0 ? (
                <li className="muted chat-empty">No messages yet. Say hello!</li>
              ) : null}
              {shown.map((m) => (
                <ChatMessageItem
                  key={m.id}
                  m={m}
                  links={settings?.linksAllowed ?? false}
                  actions={
                    m.author.kind !== 'owner' &&
                    !(user && m.author.username === user.username) &&
                    !(
                      me?.kind === 'guest' &&
                      m.author.kind === 'guest' &&
                      m.author.name === me.name
                    ) ? (
                      <details className="chat-more">
                        <summary aria-label={`More about the message from ${m.author.name}`}>
                          ⋯
                        </summary>
                        <div className="chat-more-menu">
                          <button type="button" className="btn btn-sm" onClick={() => ignore(m)}>
                            Ignore {m.author.name}
                          </button>
                          {user ? (
                            <button
                              type="button"
                              className="btn btn-sm"
                              onClick={() => void report(m)}
                            >
                              Report
                            </button>
                          ) : null}
                        </div>
                      </details>
                    ) : null
                  }
                />
              ))}
            </ol>
          </div>
          <Bursts burst={burst} />
          <div className="reactions" role="group" aria-label="React">
            {REACTION_KINDS.map((k) => (
              <button
                key={k}
                type="button"
                className="reaction-btn"
                onClick={() => react(k)}
                aria-label={REACTION_LABEL[k]}
                data-testid={`react-${k}`}
              >
                <span aria-hidden="true">{REACTION_EMOJI[k]}</span>
              </button>
            ))}
          </div>
          {me ? (
            <form className="chat-form" onSubmit={(e) => void onSend(e)}>
              <label htmlFor="chat-input" className="sr-only">
                Message as {me.name}
              </label>
              <input
                id="chat-input"
                className="input"
                value={text}
                maxLength={CHAT_LIMITS.textMax}
                onChange={(e) => setText(e.target.value)}
                placeholder={`Message as ${me.name}`}
                autoComplete="off"
                data-testid="chat-input"
              />
              <button
                type="submit"
                className="btn btn-primary"
                disabled={remaining > 0}
                data-testid="chat-send"
              >
                {remaining > 0 ? `Wait ${remaining}s` : 'Send'}
              </button>
            </form>
          ) : settings?.signedInOnly ? (
            <p className="muted">
              Only signed-in listeners can chat here. <Link to="/signin">Sign in to chat</Link>
            </p>
          ) : (
            <form className="chat-form" onSubmit={(e) => void onHello(e)}>
              <label htmlFor="chat-name" className="sr-only">
                Your name in the chat
              </label>
              <input
                id="chat-name"
                className="input"
                value={name}
                maxLength={CHAT_LIMITS.guestNameMax}
                onChange={(e) => setName(e.target.value)}
                placeholder="Pick a name to chat"
                autoComplete="nickname"
                data-testid="chat-name"
              />
              <button type="submit" className="btn" data-testid="chat-join">
                Join chat
              </button>
            </form>
          )}
          {remaining > 0 && (slowWait || settings?.slowModeSeconds) ? (
            <p
              className="chat-countdown muted small"
              data-testid="chat-countdown"
              aria-live="polite"
            >
              Slow mode: you can send another message in {remaining} s
            </p>
          ) : null}
          {error && remaining === 0 ? (
            <p className="form-error" role="alert" data-testid="chat-error">
              {error}
            </p>
          ) : null}
        </>
      ) : (
        <p className="muted" data-testid="chat-off">
          Chat is off for this station.
        </p>
      )}
    </section>
  );
}
