import { LIMITS, NowPlayingRequest, type Station } from '@radiobroadcaster/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { api } from '../../lib/api';
import { stationKeys } from '../../queries/station.queries';
import { Field, Form, FormError, SubmitButton } from '../form';
import { MutationButton } from '../MutationButton';

/** What listeners see as the current track; pushed to them within a second. */
export function NowPlayingCard({ station }: { station: Station }) {
  const queryClient = useQueryClient();
  const applyStation = (s: Station) => {
    queryClient.setQueryData(stationKeys.detail(s.id), s);
  };
  const set = useMutation({
    mutationFn: (req: NowPlayingRequest) => api.stations.setNowPlaying(req),
    meta: { errorToast: false },
    onSuccess: (s) => {
      if (s && typeof s === 'object' && 'id' in s) applyStation(s);
      void queryClient.invalidateQueries({ queryKey: stationKeys.detail(station.id) });
      toast.success('Now playing updated');
    },
  });
  const clear = useMutation({
    mutationFn: () => api.stations.clearNowPlaying(station.id),
    meta: { errorTitle: 'Could not clear now playing' },
    onSuccess: (s) => {
      if (s && typeof s === 'object' && 'id' in s) applyStation(s);
      void queryClient.invalidateQueries({ queryKey: stationKeys.detail(station.id) });
      toast.success('Now playing cleared');
    },
  });
  const np = station.nowPlaying;
  return (
    <section className="card" aria-labelledby="np-title" data-testid="studio-now-playing">
      <h2 id="np-title">Now playing</h2>
      <p className="muted" data-testid="studio-now-playing-current">
        {np
          ? `Listeners see: ${np.track}${np.artist ? ` — ${np.artist}` : ''}${np.album ? ` (${np.album})` : ''}`
          : 'Nothing announced.'}
      </p>
      <Form
        key={np ? `${np.track}|${np.artist}|${np.album}` : 'none'}
        schema={NowPlayingRequest}
        toRequest={(v) => ({
          stationId: station.id,
          track: v.track ?? '',
          artist: v.artist || undefined,
          album: v.album || undefined,
        })}
        mutation={set}
        aria-labelledby="np-title"
      >
        <Field
          label="Track"
          name="track"
          required
          maxLength={LIMITS.nowPlayingFieldMax}
          defaultValue={np?.track ?? ''}
        />
        <div className="form-row">
          <Field
            label="Artist"
            name="artist"
            maxLength={LIMITS.nowPlayingFieldMax}
            defaultValue={np?.artist ?? ''}
          />
          <Field
            label="Album"
            name="album"
            maxLength={LIMITS.nowPlayingFieldMax}
            defaultValue={np?.album ?? ''}
          />
        </div>
        <FormError />
        <div className="actions">
          <SubmitButton pendingLabel="Updating…" data-testid="now-playing-set">
            Update now playing
          </SubmitButton>
          <MutationButton mutation={clear} disabled={!np} data-testid="now-playing-clear">
            Clear
          </MutationButton>
        </div>
      </Form>
    </section>
  );
}
