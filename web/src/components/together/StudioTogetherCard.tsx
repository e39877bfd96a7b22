import type {
  ChatLogEntry,
  ChatMessage,
  ChatOwnerSettings,
  ChatReport,
  ChatSettingsRequest,
  Station,
} from '@radiobroadcaster/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { toast } from 'sonner';
import { apiFetch } from '../../lib/api';
import { ChatMessageItem, PresenceSummary } from './ChatPanel';
import { useTogether } from './useTogether';
import './together.css';

const keys = {
  settings: (id: string) => ['chat', 'settings', id] as const,
  log: (id: string) => ['chat', 'log', id] as const,
  reports: (id: string) => ['chat', 'reports', id] as const,
};

const SLOW_OPTIONS = [0, 5, 10, 30, 60, 120];

/** The studio's live room: who is listening, the chat with moderation, and the chat's settings. */
export function StudioTogetherCard({ station }: { station: Station }) {
  const stationId = station.id;
  const qc = useQueryClient();
  const { messages, pinned, presence, settings: room, send } = useTogether(stationId);
  const settings = useQuery({
    queryKey: keys.settings(stationId),
    queryFn: () =>
      apiFetch<ChatOwnerSettings>(`/api/stations/chat/settings?stationId=${stationId}`),
  });
  const log = useQuery({
    queryKey: keys.log(stationId),
    queryFn: () =>
      apiFetch<{ entries: ChatLogEntry[] }>(`/api/stations/chat/log?stationId=${stationId}`),
  });
  const reports = useQuery({
    queryKey: keys.reports(stationId),
    queryFn: () =>
      apiFetch<{ reports: ChatReport[] }>(`/api/stations/chat/reports?stationId=${stationId}`),
  });
  const refreshLog = () => void qc.invalidateQueries({ queryKey: ['chat'] });
  const act = useMutation({
    mutationFn: ({ path, body }: { path: string; body: Record<string, unknown> }) =>
      apiFetch<unknown>(`/api/stations/chat/${path}`, 'POST', { stationId, ...body }),
    meta: { errorTitle: 'Could not do that' },
    onSuccess: (_d, v) => {
      refreshLog();
      const done: Record<string, string> = {
        delete: 'Message deleted',
        ban: 'Banned: their messages are gone',
        pin: 'Pinned',
        clear: 'Chat cleared',
        settings: 'Chat settings saved',
        moderators: 'Moderators updated',
      };
      toast.success(
        v.path === 'ban' && v.body.durationSeconds
          ? 'Timed out for 5 minutes'
          : (done[v.path] ?? 'Done'),
      );
    },
  });
  const save = (body: Omit<ChatSettingsRequest, 'stationId'>) =>
    act.mutate({ path: 'settings', body });
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [words, setWords] = useState('');
  const [moderator, setModerator] = useState('');
  const listRef = useRef<HTMLOListElement>(null);
  useEffect(() => {
    if (settings.data) setWords(settings.data.words.join('\n'));
  }, [settings.data]);
  useEffect(() => {
    const el = listRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [messages.length]);

  const onSend = async (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) return;
    const ack = await send(text).catch(() => null);
    if (ack?.ok) {
      setText('');
      setError(null);
    } else setError(ack ? ack.message : 'The message did not go out.');
  };
  const s = settings.data;
  const modActions = (m: ChatMessage) =>
    m.author.kind === 'owner' ? null : (
      <span className="chat-mod-actions">
        <button
          type="button"
          className="btn btn-sm"
          onClick={() => act.mutate({ path: 'delete', body: { messageId: m.id } })}
          aria-label={`Delete the message from ${m.author.name}`}
          data-testid="mod-delete"
        >
          Delete
        </button>
        <button
          type="button"
          className="btn btn-sm"
          onClick={() =>
            act.mutate({ path: 'ban', body: { messageId: m.id, durationSeconds: 300 } })
          }
          aria-label={`Time out ${m.author.name} for 5 minutes`}
          data-testid="mod-timeout"
        >
          Timeout
        </button>
        <button
          type="button"
          className="btn btn-sm btn-danger"
          onClick={() => act.mutate({ path: 'ban', body: { messageId: m.id } })}
          aria-label={`Ban ${m.author.name}`}
          data-testid="mod-ban"
        >
          Ban
        </button>
        <button
          type="button"
          className="btn btn-sm"
          onClick={() => act.mutate({ path: 'pin', body: { messageId: m.id } })}
          aria-label={`Pin the message from ${m.author.name}`}
          data-testid="mod-pin"
        >
          Pin
        </button>
      </span>
    );

  return (
    <section
      className="card together studio-together"
      aria-labelledby="studio-chat-title"
      data-testid="studio-together"
    >
      <div className="together-head">
        <h2 id="studio-chat-title">Listeners and chat</h2>
        <PresenceSummary presence={presence} />
      </div>
      <div className="studio-together-grid">
        <div>
          {pinned ? (
            <div className="chat-pinned" data-testid="chat-pinned">
              <span className="eyebrow">Pinned</span> <strong>{pinned.author.name}</strong>{' '}
              {pinned.text}{' '}
              <button
                type="button"
                className="btn btn-sm"
                onClick={() => act.mutate({ path: 'pin', body: { messageId: null } })}
              >
                Unpin
              </button>
            </div>
          ) : null}
          <div role="log" aria-live="polite" aria-label="Chat messages">
            <ol className="chat-list" ref={listRef} data-testid="chat-list">
              {messages.length === 0 ? (
                <li className="muted chat-empty">No messages yet.</li>
              ) : null}
              {messages.map((m) => (
                <ChatMessageItem
                  key={m.id}
                  m={m}
                  links={room?.linksAllowed ?? false}
                  actions={modActions(m)}
                />
              ))}
            </ol>
          </div>
          <form className="chat-form" onSubmit={(e) => void onSend(e)}>
            <label htmlFor="studio-chat-input" className="sr-only">
              Message as the host
            </label>
            <input
              id="studio-chat-input"
              className="input"
              value={text}
              onChange={(e) => setText(e.target.value)}
              placeholder="Message your listeners"
              autoComplete="off"
              data-testid="studio-chat-input"
            />
            <button type="submit" className="btn btn-primary">
              Send
            </button>
          </form>
          {error ? (
            <p className="form-error" role="alert">
              {error}
            </p>
          ) : null}
        </div>
        <div className="chat-settings" data-testid="chat-settings">
          <h3>Chat settings</h3>
          {s ? (
            <>
              <label>
                <input
                  type="checkbox"
                  checked={s.enabled}
                  onChange={(e) => save({ enabled: e.target.checked })}
                  data-testid="chat-enabled"
                />
                Chat on
              </label>
              <label>
                <input
                  type="checkbox"
                  checked={s.signedInOnly}
                  onChange={(e) => save({ signedInOnly: e.target.checked })}
                  data-testid="chat-signed-in-only"
                />
                Signed-in listeners only
              </label>
              <label>
                <input
                  type="checkbox"
                  checked={s.linksAllowed}
                  onChange={(e) => save({ linksAllowed: e.target.checked })}
                />
                Links clickable
              </label>
              <label>
                <input
                  type="checkbox"
                  checked={s.playerChat}
                  onChange={(e) => save({ playerChat: e.target.checked })}
                />
                Chat in the embedded player
              </label>
              <label>
                Slow mode
                <select
                  className="input"
                  value={s.slowModeSeconds}
                  onChange={(e) => save({ slowModeSeconds: Number(e.target.value) })}
                  data-testid="chat-slow-mode"
                >
                  {SLOW_OPTIONS.map((n) => (
                    <option key={n} value={n}>
                      {n === 0 ? 'Off' : `${n} s between messages`}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Keep messages for
                <select
                  className="input"
                  value={s.retentionDays}
                  onChange={(e) => save({ retentionDays: Number(e.target.value) })}
                >
                  {[1, 7, 30, 90, 365].map((n) => (
                    <option key={n} value={n}>
                      {n} {n === 1 ? 'day' : 'days'}
                    </option>
                  ))}
                </select>
              </label>
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  save({
                    words: words
                      .split('\n')
                      .map((w) => w.trim())
                      .filter(Boolean),
                  });
                }}
              >
                <label htmlFor="chat-words">Blocked words (one a line)</label>
                <textarea
                  id="chat-words"
                  className="input"
                  rows={3}
                  value={words}
                  onChange={(e) => setWords(e.target.value)}
                />
                <button type="submit" className="btn btn-sm">
                  Save words
                </button>
              </form>
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  if (moderator.trim())
                    act.mutate(
                      { path: 'moderators', body: { username: moderator.trim(), moderator: true } },
                      { onSuccess: () => setModerator('') },
                    );
                }}
              >
                <label htmlFor="chat-mod">Moderators</label>
                <ul className="chat-log">
                  {s.moderators.map((m) => (
                    <li key={m.username}>
                      {m.name} (@{m.username}){' '}
                      <button
                        type="button"
                        className="btn btn-sm"
                        onClick={() =>
                          act.mutate({
                            path: 'moderators',
                            body: { username: m.username, moderator: false },
                          })
                        }
                      >
                        Remove
                      </button>
                    </li>
                  ))}
                </ul>
                <div className="chat-form">
                  <input
                    id="chat-mod"
                    className="input"
                    value={moderator}
                    onChange={(e) => setModerator(e.target.value)}
                    placeholder="username"
                  />
                  <button type="submit" className="btn btn-sm">
                    Add
                  </button>
                </div>
              </form>
              <div className="chat-form">
                <button
                  type="button"
                  className="btn btn-danger btn-sm"
                  onClick={() => {
                    if (confirm('Clear every message for everyone?'))
                      act.mutate({ path: 'clear', body: {} });
                  }}
                  data-testid="chat-clear"
                >
                  Clear chat
                </button>
                <a
                  className="btn btn-sm"
                  href={`/api/stations/chat/export?stationId=${stationId}`}
                  download={`chat-${station.slug}.json`}
                >
                  Export (JSON)
                </a>
              </div>
            </>
          ) : (
            <p className="muted">Loading…</p>
          )}
          <h3>Reports</h3>
          <ul className="chat-log" data-testid="chat-reports">
            {(reports.data?.reports ?? []).length === 0 ? <li className="muted">None.</li> : null}
            {(reports.data?.reports ?? []).map((r) => (
              <li key={r.id}>
                @{r.reporter}:{' '}
                {r.message ? `“${r.message.text}” by ${r.message.author.name}` : '(deleted)'}
              </li>
            ))}
          </ul>
          <h3>Moderation log</h3>
          <ul className="chat-log" data-testid="chat-log">
            {(log.data?.entries ?? []).length === 0 ? (
              <li className="muted">Nothing yet.</li>
            ) : null}
            {(log.data?.entries ?? []).map((e) => (
              <li key={e.id}>
                <time dateTime={e.at}>{new Date(e.at).toLocaleTimeString()}</time> @{e.actor}{' '}
                {e.action}
                {e.target ? ` ${e.target}` : ''}
                {e.detail ? ` — ${e.detail}` : ''}
              </li>
            ))}
          </ul>
        </div>
      </div>
    </section>
  );
}
