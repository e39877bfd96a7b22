import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { api } from '../../lib/api';
import { sessionQueryKey, sessionQueryOptions } from '../../queries/session.queries';
import { stationKeys } from '../../queries/station.queries';
import { ImageUpload } from '../ImageUpload';
import { initialsOf } from '../StationArt';

/** The broadcaster's picture, shown with their stations. */
export function ProfilePictureCard() {
  const queryClient = useQueryClient();
  const { data: session } = useQuery(sessionQueryOptions());
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: sessionQueryKey });
    await queryClient.invalidateQueries({ queryKey: stationKeys.all });
    await queryClient.invalidateQueries({ queryKey: ['users'] });
  };
  const upload = useMutation({
    mutationFn: (file: File) => api.me.setAvatar(file),
    meta: { errorToast: false },
    onSuccess: async () => {
      await refresh();
      toast.success('Picture updated');
    },
  });
  const remove = useMutation({
    mutationFn: () => api.me.removeAvatar(),
    meta: { errorTitle: 'Could not remove the picture' },
    onSuccess: async () => {
      upload.reset();
      await refresh();
      toast.success('Picture removed');
    },
  });
  const user = session?.user;
  if (!user) return null;
  return (
    <section
      className="card card-compact"
      aria-labelledby="avatar-title"
      data-testid="profile-picture"
    >
      <h2 id="avatar-title" className="small-title">
        Your picture
      </h2>
      <ImageUpload
        kind="avatar"
        label="Picture"
        current={user.image}
        placeholder={initialsOf(user.name || user.username).slice(0, 1)}
        pending={upload.isPending || remove.isPending}
        error={upload.error}
        onUpload={(file) => upload.mutate(file)}
        onRemove={() => remove.mutate()}
      />
    </section>
  );
}
