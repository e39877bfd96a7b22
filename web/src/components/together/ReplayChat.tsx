import type { ChatMessage, Recording } from '@radiobroadcaster/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { apiFetch } from '../../lib/api';
import { withGrant } from '../../lib/listen-grant';
import { ChatMessageItem } from './ChatPanel';
import './together.css';

type ReplayMessage = ChatMessage & { offsetMs: number };

/**
 * The chat kept with a recording, in step with the replay's audio (`[data-testid=replay-audio]` on
 * the page): the messages sent up to the current position; a seek moves it at once.
 */
export function ReplayChat({ recording, grant }: { recording: Recording; grant?: string | null }) {
  const chat = useQuery({
    queryKey: ['chat', 'replay', recording.id],
    queryFn: () =>
      apiFetch<{ messages: ReplayMessage[] }>(
        withGrant(`/api/recordings/${recording.id}/chat`, grant ?? null),
      ),
  });
  const [ms, setMs] = useState(0);
  const listRef = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const el = document.querySelector<HTMLAudioElement>('[data-testid=replay-audio]');
    if (!el) return;
    const update = () => setMs(el.currentTime * 1000);
    el.addEventListener('timeupdate', update);
    el.addEventListener('seeked', update);
    return () => {
      el.removeEventListener('timeupdate', update);
      el.removeEventListener('seeked', update);
    };
  }, []);
  const all = chat.data?.messages ?? [];
  const shown = all.filter((m) => m.offsetMs <= ms);
  useEffect(() => {
    const el = listRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [shown.length]);
  if (chat.isSuccess && all.length === 0) return null;
  return (
    <section
      className="together replay-chat"
      aria-labelledby="replay-chat-title"
      data-testid="replay-chat"
    >
      <h2 id="replay-chat-title">Chat replay</h2>
      <ol className="chat-list" ref={listRef} aria-label="Chat at this point of the replay">
        {shown.length === 0 ? (
          <li className="muted chat-empty">
            {all.length} {all.length === 1 ? 'message' : 'messages'} during this broadcast: they
            appear as the replay plays.
          </li>
        ) : null}
        {shown.map((m) => (
          <ChatMessageItem key={m.id} m={m} links={false} />
        ))}
      </ol>
    </section>
  );
}
