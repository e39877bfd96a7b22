import { LIMITS, UpdateStationRequest, type Station } from '@radiobroadcaster/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { api } from '../../lib/api';
import { stationKeys } from '../../queries/station.queries';
import { Field, Form, FormError, SubmitButton } from '../form';

/** Name, address, description and schedule of the station. */
export function StationDetailsCard({ station, username }: { station: Station; username: string }) {
  const queryClient = useQueryClient();
  const update = useMutation({
    mutationFn: (req: UpdateStationRequest) => api.stations.update(req),
    meta: { errorToast: false },
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: stationKeys.byUser(username) }),
        queryClient.invalidateQueries({ queryKey: stationKeys.detail(station.id) }),
      ]);
      toast.success('Station saved');
    },
  });
  return (
    <section className="card" aria-labelledby="edit-title">
      <h2 id="edit-title">Station details</h2>
      <Form
        key={`${station.name}|${station.slug}|${station.description}|${station.schedule}`}
        schema={UpdateStationRequest}
        toRequest={(v) => ({
          stationId: station.id,
          name: v.name !== station.name ? v.name : undefined,
          slug: v.slug !== station.slug ? v.slug : undefined,
          description: v.description !== station.description ? v.description : undefined,
          schedule: v.schedule !== station.schedule ? v.schedule : undefined,
        })}
        mutation={update}
        aria-labelledby="edit-title"
        data-testid="edit-station-form"
      >
        <Field
          label="Name"
          name="name"
          required
          maxLength={LIMITS.stationNameMax}
          defaultValue={station.name}
        />
        <Field
          label="Slug"
          name="slug"
          required
          maxLength={LIMITS.stationSlugMax}
          autoCapitalize="none"
          spellCheck={false}
          defaultValue={station.slug}
          hint="Changing it changes the public address; old links stop working."
        />
        <Field
          label="Description"
          name="description"
          multiline
          maxLength={LIMITS.descriptionMax}
          defaultValue={station.description}
        />
        <Field
          label="Schedule"
          name="schedule"
          multiline
          maxLength={LIMITS.scheduleMax}
          defaultValue={station.schedule}
          placeholder={'Weeknights 22:00–02:00 CET\nSundays: jazz brunch from 11:00'}
          hint="When you are on air, in your words. Shown on the station page."
        />
        <FormError />
        <SubmitButton pendingLabel="Saving…">Save</SubmitButton>
      </Form>
    </section>
  );
}
