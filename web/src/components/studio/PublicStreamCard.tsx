import {
  type BroadcastSettings,
  SIGNED_PLAYLIST_TTL_HOURS,
  type Station,
} from '@radiobroadcaster/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { toast } from 'sonner';
import { radioApi } from '../../lib/radio-api';
import { radioKeys, radioQueries } from '../../queries/radio.queries';
import { CopyButton } from '../CopyButton';
import { StreamUrl } from '../StreamUrl';

/**
 * The station's HTTP stream for radio apps and VLC, and the owner's "Public stream URL" switch. On,
 * the plain URL plays anywhere; off (the default once allowed domains are listed), only our player
 * on this site and the allowed domains plays it, and VLC or radio apps need the signed link shown
 * here.
 */
export function PublicStreamCard({ station }: { station: Station }) {
  const queryClient = useQueryClient();
  const settings = useQuery(radioQueries.settings(station.id));
  const id = useId();
  // The switch moves at once and stays until the save settles (a refusal puts it back).
  const [shown, setShown] = useState<boolean | null>(null);
  const update = useMutation({
    mutationFn: (publicStreamUrl: boolean) =>
      radioApi.updateSettings({ stationId: station.id, publicStreamUrl }),
    meta: { errorTitle: 'Could not change the stream setting' },
    onSettled: () => setShown(null),
    onSuccess: (next) => {
      queryClient.setQueryData<BroadcastSettings>(radioKeys.settings(station.id), next);
      toast.success(next.publicStreamUrl ? 'Stream URL is public' : 'Stream URL is private');
    },
  });
  const on = shown ?? settings.data?.publicStreamUrl ?? true;
  return (
    <section className="card" aria-labelledby={`${id}-title`} data-testid="public-stream">
      <h2 id={`${id}-title`}>HTTP stream</h2>
      <StreamUrl username={station.broadcaster.username} slug={station.slug} />
      <label className="switch">
        <input
          type="checkbox"
          role="switch"
          className="switch-input"
          checked={on}
          disabled={!settings.data || update.isPending}
          onChange={(e) => {
            setShown(e.target.checked);
            update.mutate(e.target.checked);
          }}
          data-testid="public-stream-toggle"
        />
        Public stream URL
      </label>
      <p className="muted small" data-testid="public-stream-help">
        {on
          ? settings.data?.domainsListed
            ? 'The stream plays anywhere: in radio apps, VLC and smart speakers, and on any web page that hides its address, even on sites you did not allow. Turn it off to keep it to your allowed domains.'
            : 'Radio apps, VLC and smart speakers can play it. Web pages can only if their site is in your allowed domains.'
          : 'Only the player on this site and on your allowed domains can play it; the plain URL is refused (radio apps and VLC too).'}
      </p>
      {!on && settings.data?.signedListen && (
        <>
          <h3>Private link for VLC and radio apps</h3>
          <p className="muted small">
            Plays for {SIGNED_PLAYLIST_TTL_HOURS} hours (a stream already playing keeps going), for
            anyone who has it: share it only with people you mean to. Reload this page for a fresh
            one.
          </p>
          <div className="share-row">
            <code className="share-url" data-testid="signed-stream-url">
              {settings.data.signedListen.m3u}
            </code>
            <CopyButton
              text={settings.data.signedListen.m3u}
              label="Copy private link"
              data-testid="signed-stream-url-copy"
            />
          </div>
        </>
      )}
    </section>
  );
}
