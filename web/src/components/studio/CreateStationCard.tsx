import { CreateStationRequest, LIMITS } from '@radiobroadcaster/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { api } from '../../lib/api';
import { rememberStationToken } from '../../lib/station-tokens';
import { stationKeys } from '../../queries/station.queries';
import { Field, Form, FormError, SubmitButton } from '../form';

export function CreateStationCard({
  username,
  onCreated,
}: {
  username: string;
  onCreated: (id: string) => void;
}) {
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (req: CreateStationRequest) => api.stations.create(req),
    meta: { errorToast: false },
    onSuccess: async ({ station, streamToken }) => {
      rememberStationToken(station.id, streamToken);
      await queryClient.invalidateQueries({ queryKey: stationKeys.byUser(username) });
      toast.success('Station created', { description: station.name });
      onCreated(station.id);
    },
  });
  return (
    <section className="card" aria-labelledby="create-title">
      <h2 id="create-title">New station</h2>
      <Form
        schema={CreateStationRequest}
        toRequest={(v) => ({
          name: v.name ?? '',
          slug: v.slug || undefined,
          description: v.description || undefined,
        })}
        mutation={create}
        aria-labelledby="create-title"
        data-testid="create-station-form"
      >
        <Field label="Name" name="name" required maxLength={LIMITS.stationNameMax} />
        <Field
          label="Slug"
          name="slug"
          maxLength={LIMITS.stationSlugMax}
          autoCapitalize="none"
          spellCheck={false}
          hint={`The address: /${username}/your-slug. Lowercase letters, digits and single dashes; made from the name when empty.`}
        />
        <Field label="Description" name="description" multiline maxLength={LIMITS.descriptionMax} />
        <FormError />
        <SubmitButton pendingLabel="Creating…" data-testid="create-station">
          Create station
        </SubmitButton>
      </Form>
    </section>
  );
}
