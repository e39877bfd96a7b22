import type { BroadcastSettings, Station } from '@radiobroadcaster/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { toast } from 'sonner';
import { radioApi } from '../../lib/radio-api';
import { radioKeys, radioQueries } from '../../queries/radio.queries';
import { StreamUrl } from '../StreamUrl';

/**
 * The station's HTTP stream for radio apps and VLC, and the owner's "Public stream URL" switch:
 * off, only pages on the allowed domains (and this site) can play it.
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
      <label>
        <input
          type="checkbox"
          checked={on}
          disabled={!settings.data || update.isPending}
          onChange={(e) => {
            setShown(e.target.checked);
            update.mutate(e.target.checked);
          }}
          data-testid="public-stream-toggle"
        />{' '}
        Public stream URL
      </label>
      <p className="muted small">
        {on
          ? 'Radio apps, VLC and smart speakers can play it. Web pages can only if their site is in your allowed domains.'
          : 'Only this site and your allowed domains can play it; radio apps and VLC are refused.'}
      </p>
    </section>
  );
}
