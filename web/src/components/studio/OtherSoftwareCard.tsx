import type { BroadcastSettings, Station } from '@radiobroadcaster/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type KeyboardEvent } from 'react';
import { toast } from 'sonner';
import { radioApi } from '../../lib/radio-api';
import { radioKeys, radioQueries } from '../../queries/radio.queries';
import { ConfirmDialog } from '../ConfirmDialog';
import { CopyButton } from '../CopyButton';
import { ErrorNote } from '../form';
import './radio.css';

type Tool = 'obs' | 'icecast' | 'ffmpeg';
const TOOLS: { id: Tool; label: string }[] = [
  { id: 'obs', label: 'OBS' },
  { id: 'icecast', label: 'BUTT · Mixxx · liquidsoap' },
  { id: 'ffmpeg', label: 'ffmpeg' },
];

const MASK = '•'.repeat(24);

/** What a source needs, with the key hidden unless revealed (copying never needs revealing). */
export function connectionDetails(s: BroadcastSettings, key: string) {
  const { host, port, tls, mount, username } = s.icecast;
  const scheme = 'icecast';
  const ffmpeg =
    `ffmpeg -re -i music.mp3 -c:a libopus -b:a 128k -content_type audio/ogg -f ogg ` +
    `${tls ? '-tls 1 ' : ''}${scheme}://${username}:${key}@${host}:${port}${mount}`;
  const liquidsoap =
    `output.icecast(%ogg(%opus(bitrate=128)), host="${host}", port=${port},\n` +
    `  user="${username}", password="${key}", mount="${mount}",\n` +
    `  ${tls ? 'transport=http.transport.ssl(), ' : ''}radio)`;
  return { ffmpeg, liquidsoap };
}

/**
 * "Broadcast from other software": the station's persistent stream key and what to paste into OBS
 * (WHIP), BUTT, Mixxx and liquidsoap (Icecast), or ffmpeg. The key is shown on request, copied
 * without being shown, and rotated after a confirmation (a live source using it is cut off).
 */
export function OtherSoftwareCard({ station }: { station: Station }) {
  const queryClient = useQueryClient();
  const settings = useQuery({
    ...radioQueries.settings(station.id),
    meta: { errorTitle: 'Could not load the broadcast settings' },
  });
  const [revealed, setRevealed] = useState(false);
  const [tool, setTool] = useState<Tool>('obs');
  const [confirming, setConfirming] = useState(false);
  const baseId = useId();
  const rotate = useMutation({
    mutationFn: () => radioApi.rotateKey(station.id),
    meta: { errorTitle: 'Could not rotate the stream key' },
    onSuccess: ({ streamKey }) => {
      queryClient.setQueryData<BroadcastSettings>(radioKeys.settings(station.id), (old) =>
        old ? { ...old, streamKey, streamKeyRotatedAt: new Date().toISOString() } : old,
      );
      void queryClient.invalidateQueries({ queryKey: radioKeys.settings(station.id) });
      setConfirming(false);
      setRevealed(true);
      toast.success('New stream key ready', {
        description: 'Paste it into your broadcasting software.',
      });
    },
  });

  const s = settings.data;
  const key = s?.streamKey ?? null;
  const shownKey = key === null ? '' : revealed ? key : MASK;
  const details = s && key ? connectionDetails(s, key) : null;
  const shown = s && key ? connectionDetails(s, shownKey) : null;

  const onTabKey = (e: KeyboardEvent<HTMLButtonElement>) => {
    const i = TOOLS.findIndex((t) => t.id === tool);
    const next =
      e.key === 'ArrowRight' ? (i + 1) % TOOLS.length : e.key === 'ArrowLeft' ? i - 1 : null;
    if (next === null) return;
    e.preventDefault();
    const t = TOOLS[(next + TOOLS.length) % TOOLS.length]!;
    setTool(t.id);
    document.getElementById(`${baseId}-tab-${t.id}`)?.focus();
  };

  return (
    <section className="card" aria-labelledby="other-software-title" data-testid="other-software">
      <h2 id="other-software-title">Broadcast from other software</h2>
      <p className="muted">
        Go live from OBS, BUTT, Mixxx, liquidsoap, ffmpeg or a hardware encoder instead of this
        browser. They sign in with the station&apos;s stream key, which stays the same until you
        rotate it. Keep it secret: anyone with it can broadcast on this station.
      </p>
      {settings.isPending ? (
        <p className="muted" role="status">
          Loading…
        </p>
      ) : !s ? (
        <ErrorNote>Could not load the broadcast settings.</ErrorNote>
      ) : (
        <>
          <div className="sk-row">
            <span className="sk-label" id={`${baseId}-key`}>
              Stream key
            </span>
            {key === null ? (
              <p className="notice notice-warn" data-testid="stream-key-unavailable">
                The key can no longer be shown (the server&apos;s secret changed). Rotate it to get
                a new one.
              </p>
            ) : (
              <code
                className="sk-value"
                aria-labelledby={`${baseId}-key`}
                data-testid="stream-key"
                data-revealed={revealed}
              >
                {shownKey}
              </code>
            )}
            <div className="sk-actions">
              {key !== null ? (
                <>
                  <button
                    type="button"
                    className="btn btn-sm"
                    aria-pressed={revealed}
                    onClick={() => setRevealed((r) => !r)}
                    data-testid="stream-key-reveal"
                  >
                    {revealed ? 'Hide' : 'Reveal'}
                  </button>
                  <CopyButton
                    text={key}
                    aria-label="Copy the stream key"
                    data-testid="stream-key-copy"
                  />
                </>
              ) : null}
              <button
                type="button"
                className="btn btn-sm btn-danger"
                onClick={() => setConfirming(true)}
                data-testid="stream-key-rotate"
              >
                Rotate key…
              </button>
            </div>
          </div>

          {details && shown ? (
            <>
              <div className="tabs sw-tabs" role="tablist" aria-label="Software">
                {TOOLS.map((t) => (
                  <button
                    key={t.id}
                    type="button"
                    role="tab"
                    id={`${baseId}-tab-${t.id}`}
                    className="tab"
                    aria-selected={tool === t.id}
                    aria-controls={`${baseId}-panel`}
                    tabIndex={tool === t.id ? 0 : -1}
                    onClick={() => setTool(t.id)}
                    onKeyDown={onTabKey}
                    data-testid={`software-tab-${t.id}`}
                  >
                    {t.label}
                  </button>
                ))}
              </div>
              <div
                role="tabpanel"
                id={`${baseId}-panel`}
                aria-labelledby={`${baseId}-tab-${tool}`}
                data-testid={`software-panel-${tool}`}
              >
                {tool === 'obs' ? (
                  <>
                    <p className="small muted">
                      OBS 30 or later: Settings → Stream → Service <strong>WHIP</strong>.
                    </p>
                    <dl className="sw-list">
                      <Row label="Server" value={s.whipUrl} testId="obs-server" />
                      <Row label="Bearer Token" value={shownKey} copy={key!} testId="obs-token" />
                    </dl>
                  </>
                ) : tool === 'icecast' ? (
                  <>
                    <p className="small muted">
                      Server type <strong>Icecast</strong>. Ogg/Opus passes through untouched; MP3
                      (the default in BUTT and Mixxx) is converted to Opus.
                    </p>
                    <dl className="sw-list">
                      <Row label="Server" value={s.icecast.host} testId="icecast-host" />
                      <Row label="Port" value={String(s.icecast.port)} testId="icecast-port" />
                      <Row label="Mount" value={s.icecast.mount} testId="icecast-mount" />
                      <Row label="User" value={s.icecast.username} testId="icecast-user" />
                      <Row
                        label="Password"
                        value={shownKey}
                        copy={key!}
                        testId="icecast-password"
                      />
                      {s.icecast.tls ? (
                        <Row label="TLS / SSL" value="On" testId="icecast-tls" />
                      ) : null}
                    </dl>
                    <p className="small muted">liquidsoap:</p>
                    <Snippet part="liquidsoap" shown={shown} real={details} />
                  </>
                ) : (
                  <>
                    <p className="small muted">
                      Streams a file (replace <code>music.mp3</code>) as Ogg/Opus; any input ffmpeg
                      reads works, a sound card too.
                    </p>
                    <Snippet part="ffmpeg" shown={shown} real={details} />
                  </>
                )}
              </div>
            </>
          ) : null}
        </>
      )}
      <ConfirmDialog
        open={confirming}
        title="Rotate the stream key?"
        confirmLabel="Rotate key"
        pendingLabel="Rotating…"
        pending={rotate.isPending}
        onConfirm={() => rotate.mutate()}
        onCancel={() => setConfirming(false)}
        data-testid="rotate-dialog"
      >
        <p>
          The current key stops working at once. Software broadcasting with it right now is cut off,
          and OBS, BUTT, Mixxx, liquidsoap or ffmpeg need the new key before they can go live again.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function Row({
  label,
  value,
  copy,
  testId,
}: {
  label: string;
  value: string;
  copy?: string;
  testId: string;
}) {
  return (
    <div className="sw-row">
      <dt>{label}</dt>
      <dd>
        <code data-testid={testId}>{value}</code>
        <CopyButton
          text={copy ?? value}
          aria-label={`Copy ${label.toLowerCase()}`}
          data-testid={`${testId}-copy`}
        />
      </dd>
    </div>
  );
}

const SNIPPETS = {
  liquidsoap: { label: 'Copy the liquidsoap output', testId: 'liquidsoap-snippet' },
  ffmpeg: { label: 'Copy the command', testId: 'ffmpeg-command' },
} as const;

/** A snippet to paste: shown with the key as the card shows it, copied with the real key. */
function Snippet({
  part,
  shown,
  real,
}: {
  part: keyof typeof SNIPPETS;
  shown: ReturnType<typeof connectionDetails>;
  real: ReturnType<typeof connectionDetails>;
}) {
  const { label, testId } = SNIPPETS[part];
  return (
    <div className="sw-snippet">
      <pre data-testid={testId}>
        <code>{shown[part]}</code>
      </pre>
      <CopyButton text={real[part]} label={label} data-testid={`${testId}-copy`} />
    </div>
  );
}
