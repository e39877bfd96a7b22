import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toast } from 'sonner';
import { apiFetch } from '../../lib/api';

const key = ['account', 'presence'] as const;

/** "Show me as listening": off by default; on, stations list this account while it listens or chats. */
export function PresenceVisibilityCard() {
  const qc = useQueryClient();
  // The box shows the choice at once (in the click's own render); a refusal puts it back.
  const [shown, setShown] = useState<boolean | null>(null);
  const q = useQuery({
    queryKey: key,
    queryFn: () => apiFetch<{ visible: boolean }>('/api/account/presence'),
  });
  const set = useMutation({
    mutationFn: (visible: boolean) =>
      apiFetch<{ visible: boolean }>('/api/account/presence', 'PUT', { visible }),
    meta: { errorTitle: 'Could not save' },
    onError: () => setShown(null),
    onSuccess: (r) => {
      qc.setQueryData(key, r);
      setShown(null);
      toast.success(
        r.visible ? 'Stations now show you as listening' : 'You now listen as one of the guests',
      );
    },
  });
  return (
    <section className="card" aria-labelledby="presence-title" data-testid="presence-setting">
      <h2 id="presence-title">Listening in public</h2>
      <p className="muted">
        When this is on, the stations you listen to show your name and picture in their list of
        listeners. When it is off, you are counted as one of the guests.
      </p>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={shown ?? q.data?.visible ?? false}
          disabled={!q.isSuccess}
          onChange={(e) => {
            setShown(e.target.checked);
            set.mutate(e.target.checked);
          }}
          data-testid="presence-visible"
        />{' '}
        Show me as listening
      </label>
    </section>
  );
}
