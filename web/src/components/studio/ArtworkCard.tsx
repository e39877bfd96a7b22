import type { Station } from '@radiobroadcaster/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { api } from '../../lib/api';
import { stationKeys } from '../../queries/station.queries';
import { ImageUpload } from '../ImageUpload';
import { initialsOf } from '../StationArt';

/** The station's cover art: shown on its page, in the player and in shared links. */
export function ArtworkCard({ station }: { station: Station }) {
  const queryClient = useQueryClient();
  const applied = async (s: Station) => {
    queryClient.setQueryData(stationKeys.detail(s.id), s);
    await queryClient.invalidateQueries({ queryKey: stationKeys.all });
    await queryClient.invalidateQueries({ queryKey: stationKeys.byUser(s.broadcaster.username) });
  };
  const upload = useMutation({
    mutationFn: (file: File) => api.stations.setCover(station.id, file),
    meta: { errorToast: false },
    onSuccess: async (s) => {
      await applied(s);
      toast.success('Cover art updated');
    },
  });
  const remove = useMutation({
    mutationFn: () => api.stations.removeCover(station.id),
    meta: { errorTitle: 'Could not remove the cover art' },
    onSuccess: async (s) => {
      upload.reset();
      await applied(s);
      toast.success('Cover art removed');
    },
  });
  return (
    <section className="card" aria-labelledby="artwork-title" data-testid="artwork">
      <h2 id="artwork-title">Cover art</h2>
      <ImageUpload
        kind="cover"
        label="Cover art"
        current={station.coverUrl}
        placeholder={initialsOf(station.name)}
        pending={upload.isPending || remove.isPending}
        error={upload.error}
        onUpload={(file) => upload.mutate(file)}
        onRemove={() => remove.mutate()}
      />
    </section>
  );
}
