import type { Station } from '@radiobroadcaster/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toast } from 'sonner';
import { api } from '../../lib/api';
import { stationKeys } from '../../queries/station.queries';
import { useBroadcast } from '../broadcast/BroadcastProvider';
import { ConfirmDialog } from '../ConfirmDialog';
import { InputField } from '../form';

/** Deleting is for good: the address becomes free and listeners are told the station is gone. */
export function DeleteStationCard({
  station,
  onDeleted,
}: {
  station: Station;
  onDeleted: () => void;
}) {
  const queryClient = useQueryClient();
  const { station: target, controller } = useBroadcast();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const username = station.broadcaster.username;
  const remove = useMutation({
    mutationFn: () => api.stations.remove(station.id),
    meta: { errorTitle: 'Could not delete the station' },
    onSuccess: async () => {
      if (target?.id === station.id) await controller.stop();
      setOpen(false);
      queryClient.removeQueries({ queryKey: stationKeys.detail(station.id) });
      await queryClient.invalidateQueries({ queryKey: stationKeys.byUser(username) });
      toast.success('Station deleted', { description: station.name });
      onDeleted();
    },
  });
  const matches = typed.trim() === station.slug;
  return (
    <section className="card card-danger" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete station</h2>
      <p className="muted">
        Removes <strong>{station.name}</strong> for good: its page and player stop working, its
        address{' '}
        <code>
          /{username}/{station.slug}
        </code>{' '}
        becomes free, and anyone listening is told the station is gone.
      </p>
      <button
        type="button"
        className="btn btn-danger"
        onClick={() => {
          setTyped('');
          setOpen(true);
        }}
        data-testid="delete-station"
      >
        Delete station…
      </button>
      <ConfirmDialog
        open={open}
        title={`Delete ${station.name}?`}
        confirmLabel="Delete station"
        pendingLabel="Deleting…"
        pending={remove.isPending}
        confirmDisabled={!matches}
        onConfirm={() => remove.mutate()}
        onCancel={() => setOpen(false)}
        returnFocus={() => document.querySelector<HTMLElement>('[data-testid=studio-new]')}
        data-testid="delete-dialog"
      >
        <p>This cannot be undone.</p>
        <InputField
          label={
            <>
              Type <strong>{station.slug}</strong> to confirm
            </>
          }
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          data-testid="delete-confirm-slug"
        />
      </ConfirmDialog>
    </section>
  );
}
