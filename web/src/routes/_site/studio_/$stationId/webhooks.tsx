import {
  CreateWebhookRequest,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_LIMITS,
  type Webhook,
  type WebhookDelivery,
  type WebhookEventType,
} from '@radiobroadcaster/contracts';
import { useMutation, useQuery, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { useState } from 'react';
import { toast } from 'sonner';
import { AuthRequiredOrError } from '../../../../components/AuthRequired';
import { Field, Form, FormError, SubmitButton } from '../../../../components/form';
import { MutationButton } from '../../../../components/MutationButton';
import { StudioSubpage } from '../../../../components/StudioSubpage';
import { audienceApi } from '../../../../lib/audience-api';
import { requireSession } from '../../../../lib/auth';
import { pageMeta, withSuffix } from '../../../../lib/seo';
import { stationQueries } from '../../../../queries/station.queries';
import { webhookKeys, webhookQueries } from '../../../../queries/webhooks.queries';

export const Route = createFileRoute('/_site/studio_/$stationId/webhooks')({
  beforeLoad: async ({ context: { queryClient } }) => ({
    session: await requireSession(queryClient),
  }),
  loader: async ({ context: { queryClient }, params }) => {
    await Promise.all([
      queryClient.ensureQueryData(stationQueries.detail(params.stationId)),
      queryClient.ensureQueryData(webhookQueries.list(params.stationId)),
    ]);
  },
  head: () => ({
    meta: pageMeta({
      title: withSuffix('Webhooks'),
      description:
        "Tell your own services when your station goes live, goes offline or changes what's playing.",
    }),
  }),
  errorComponent: AuthRequiredOrError,
  component: WebhooksPage,
});

const EVENT_TEXT: Record<WebhookEventType, string> = {
  'station.live': 'goes live',
  'station.offline': 'goes offline or ends',
  'now_playing.changed': 'now playing changes',
  'recording.ready': 'a recording is ready',
  'chat.message': 'a chat message is sent (also needs webhooks on in the chat settings)',
  'reaction.burst': 'listeners react (one per burst; also needs webhooks on in the chat settings)',
  'show.scheduled': 'a show is scheduled',
  'show.starting': 'a scheduled show starts',
  'station.followed': 'the number of followers changes',
};

function WebhooksPage() {
  const { stationId } = Route.useParams();
  const { data: station } = useSuspenseQuery(stationQueries.detail(stationId));
  const { data: hooks } = useSuspenseQuery(webhookQueries.list(stationId));
  return (
    <StudioSubpage
      station={station}
      title="Webhooks"
      testId="webhooks-page"
      intro="We POST a signed JSON event to your URL when the station goes live or offline, when now playing changes and when a recording is ready. Failed deliveries are retried for about three days."
    >
      <div className="stack">
        <AddWebhook stationId={stationId} full={hooks.length >= WEBHOOK_LIMITS.perStation} />
        {hooks.length === 0 ? (
          <p className="muted" data-testid="webhooks-empty">
            No webhooks yet.
          </p>
        ) : (
          hooks.map((h) => <WebhookCard key={h.id} hook={h} />)
        )}
        <VerifyHelp />
      </div>
    </StudioSubpage>
  );
}

function AddWebhook({ stationId, full }: { stationId: string; full: boolean }) {
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: (req: CreateWebhookRequest) => audienceApi.webhooks.create(req),
    meta: { errorToast: false },
    onSuccess: async (hook, _req) => {
      toast.success('Webhook added', { description: hook.url });
      await queryClient.invalidateQueries({ queryKey: webhookKeys.list(stationId) });
    },
  });
  return (
    <section className="card" aria-labelledby="add-hook-title">
      <h2 id="add-hook-title">Add an endpoint</h2>
      {full ? (
        <p className="muted">A station can have at most {WEBHOOK_LIMITS.perStation} webhooks.</p>
      ) : (
        <Form
          schema={CreateWebhookRequest}
          toRequest={(v) => ({
            stationId,
            url: v.url ?? '',
            description: v.description || undefined,
            events: WEBHOOK_EVENT_TYPES.filter((e) => v[`event:${e}`] === 'on'),
          })}
          mutation={create}
          resetOnSuccess
          data-testid="add-webhook-form"
        >
          <Field
            label="Endpoint URL"
            name="url"
            type="url"
            inputMode="url"
            required
            maxLength={WEBHOOK_LIMITS.urlMax}
            placeholder="https://example.com/hooks/radio"
            hint="A public https:// address that answers 2xx within 10 seconds."
          />
          <Field
            label="Description"
            name="description"
            maxLength={WEBHOOK_LIMITS.descriptionMax}
            placeholder="Discord announcer"
          />
          <fieldset className="checks" data-testid="webhook-events">
            <legend>Send me an event when the station…</legend>
            {WEBHOOK_EVENT_TYPES.map((e) => (
              <label key={e}>
                <input
                  type="checkbox"
                  name={`event:${e}`}
                  // Chat events are many: only when asked for.
                  defaultChecked={!e.startsWith('chat.') && !e.startsWith('reaction.')}
                  data-testid={`event-${e}`}
                />
                <span>
                  {EVENT_TEXT[e]} <code className="small">{e}</code>
                </span>
              </label>
            ))}
          </fieldset>
          <FormError />
          <SubmitButton pendingLabel="Adding…" data-testid="add-webhook">
            Add webhook
          </SubmitButton>
        </Form>
      )}
    </section>
  );
}

function WebhookCard({ hook }: { hook: Webhook }) {
  const queryClient = useQueryClient();
  const [revealed, setRevealed] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: webhookKeys.list(hook.stationId) }),
      queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(hook.id) }),
    ]);
  const test = useMutation({
    mutationFn: () => audienceApi.webhooks.test(hook.id),
    meta: { errorTitle: 'Could not send the test event' },
    onSuccess: async (d) => {
      const last = d.attempts.at(-1);
      if (d.status === 'succeeded')
        toast.success('Test event delivered', {
          description: `${last?.responseStatus} in ${last?.durationMs} ms`,
        });
      else
        toast.error('Test event failed', {
          description: last?.error ?? `Your endpoint answered ${last?.responseStatus}`,
        });
      await refresh();
    },
  });
  const toggle = useMutation({
    mutationFn: () => audienceApi.webhooks.update({ webhookId: hook.id, enabled: !hook.enabled }),
    meta: { errorTitle: 'Could not change the webhook' },
    onSuccess: async (h) => {
      toast.success(h.enabled ? 'Webhook resumed' : 'Webhook paused');
      await refresh();
    },
  });
  const rotate = useMutation({
    mutationFn: () => audienceApi.webhooks.rotateSecret(hook.id),
    meta: { errorTitle: 'Could not rotate the secret' },
    onSuccess: async () => {
      setRevealed(true);
      toast.success('New signing secret', { description: 'Update your receiver to use it.' });
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => audienceApi.webhooks.remove(hook.id),
    meta: { errorTitle: 'Could not delete the webhook' },
    onSuccess: async () => {
      toast.success('Webhook deleted', { description: hook.url });
      await queryClient.invalidateQueries({ queryKey: webhookKeys.list(hook.stationId) });
    },
  });
  const titleId = `hook-${hook.id}`;
  return (
    <section className="card" aria-labelledby={titleId} data-testid="webhook" data-url={hook.url}>
      <div className="hook-head">
        <h2 id={titleId} className="hook-url">
          {hook.url}
        </h2>
        <span
          className={`pill ${hook.enabled ? 'pill-ok' : 'pill-wait'}`}
          data-testid="webhook-state"
        >
          {hook.enabled ? 'Active' : hook.pausedReason ? 'Paused by the server' : 'Paused'}
        </span>
      </div>
      {hook.pausedReason && !hook.enabled ? (
        <p className="form-error" role="status" data-testid="webhook-paused-reason">
          {hook.pausedReason}. Remove it and add the endpoint again with a public address.
        </p>
      ) : null}
      {hook.description ? <p className="muted">{hook.description}</p> : null}
      <ul className="chips" aria-label="Events">
        {hook.events.map((e) => (
          <li key={e} className="chip">
            {e}
          </li>
        ))}
      </ul>
      <p className="small muted" data-testid="webhook-last">
        {hook.lastDelivery ? (
          <>
            Last delivery: <DeliveryStatus status={hook.lastDelivery.status} />{' '}
            {hook.lastDelivery.responseStatus !== null
              ? `HTTP ${hook.lastDelivery.responseStatus}, `
              : ''}
            <time dateTime={hook.lastDelivery.at}>{formatTime(hook.lastDelivery.at)}</time>
          </>
        ) : (
          'Nothing sent yet.'
        )}
      </p>
      <div className="secret">
        <span className="small">Signing secret</span>
        <code data-testid="webhook-secret">
          {revealed ? hook.secret : 'whsec_' + '•'.repeat(16)}
        </code>
        <button
          type="button"
          className="btn btn-sm"
          onClick={() => setRevealed((r) => !r)}
          aria-pressed={revealed}
        >
          {revealed ? 'Hide' : 'Reveal'}
        </button>
        <button
          type="button"
          className="btn btn-sm"
          onClick={() =>
            void navigator.clipboard
              ?.writeText(hook.secret)
              .then(() => toast.success('Secret copied'))
              .catch(() => toast.error('Could not copy: reveal it and copy by hand'))
          }
        >
          Copy
        </button>
      </div>
      <div className="actions">
        <MutationButton
          mutation={test}
          pendingLabel="Sending…"
          className="btn btn-primary btn-sm"
          data-testid="webhook-test"
        >
          Send test event
        </MutationButton>
        <MutationButton mutation={toggle} className="btn btn-sm">
          {hook.enabled ? 'Pause' : 'Resume'}
        </MutationButton>
        <MutationButton mutation={rotate} className="btn btn-sm">
          Rotate secret
        </MutationButton>
        {confirmDelete ? (
          <span role="group" aria-label="Confirm deleting the webhook" className="actions">
            <MutationButton mutation={remove} className="btn btn-sm btn-danger">
              Yes, delete
            </MutationButton>
            <button type="button" className="btn btn-sm" onClick={() => setConfirmDelete(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button
            type="button"
            className="btn btn-sm btn-danger"
            onClick={() => setConfirmDelete(true)}
          >
            Delete
          </button>
        )}
      </div>
      <DeliveryLog hook={hook} />
    </section>
  );
}

function DeliveryLog({ hook }: { hook: Webhook }) {
  const [open, setOpen] = useState(false);
  const { data, isPending, isError } = useQuery({
    ...webhookQueries.deliveries(hook.id),
    enabled: open,
  });
  return (
    <details
      className="log"
      onToggle={(e) => setOpen(e.currentTarget.open)}
      data-testid="delivery-log"
    >
      <summary>Delivery log</summary>
      {!open ? null : isPending ? (
        <p className="muted">Loading…</p>
      ) : isError ? (
        <p className="form-error">Could not load the log.</p>
      ) : data.length === 0 ? (
        <p className="muted">No deliveries yet. Send a test event to try your endpoint.</p>
      ) : (
        <div className="table-wrap">
          <table className="data-table">
            <caption className="sr-only">The last {data.length} deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Queued</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.map((d) => (
                <DeliveryRow key={d.id} delivery={d} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}

function DeliveryRow({ delivery: d }: { delivery: WebhookDelivery }) {
  const queryClient = useQueryClient();
  const retry = useMutation({
    mutationFn: () => audienceApi.webhooks.retry(d.id),
    meta: { errorTitle: 'Could not resend' },
    onSuccess: async (r) => {
      if (r.status === 'succeeded') toast.success('Delivered');
      else toast.error('Resend failed', { description: r.attempts.at(-1)?.error ?? undefined });
      await queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(d.webhookId) });
    },
  });
  const last = d.attempts.at(-1);
  return (
    <tr data-testid="delivery" data-status={d.status}>
      <td>
        <code>{d.eventType}</code>
        <details>
          <summary className="small muted">Details</summary>
          <p className="small muted">
            Event id <code>{d.eventId}</code>
          </p>
          <ol className="small">
            {d.attempts.map((a, i) => (
              <li key={i}>
                <time dateTime={a.at}>{formatTime(a.at)}</time>:{' '}
                {a.responseStatus !== null ? `HTTP ${a.responseStatus}` : 'no answer'}
                {a.error ? ` (${a.error})` : ''} in {a.durationMs} ms
                {a.responseBody ? (
                  <pre className="payload" tabIndex={0}>
                    {a.responseBody}
                  </pre>
                ) : null}
              </li>
            ))}
          </ol>
          <pre className="payload" tabIndex={0}>
            {prettyJson(d.payload)}
          </pre>
        </details>
      </td>
      <td>
        <DeliveryStatus status={d.status} />
        {last ? (
          <span className="small muted">
            {' '}
            {last.responseStatus !== null ? last.responseStatus : (last.error ?? '')}
          </span>
        ) : null}
        {d.status === 'pending' && d.nextAttemptAt ? (
          <div className="small muted">
            next try <time dateTime={d.nextAttemptAt}>{formatTime(d.nextAttemptAt)}</time>
          </div>
        ) : null}
      </td>
      <td className="num">{d.attemptCount}</td>
      <td>
        <time dateTime={d.createdAt}>{formatTime(d.createdAt)}</time>
      </td>
      <td>
        <MutationButton
          mutation={retry}
          className="btn btn-sm"
          aria-label={`Resend ${d.eventType} event ${d.eventId}`}
        >
          Resend
        </MutationButton>
      </td>
    </tr>
  );
}

function DeliveryStatus({ status }: { status: WebhookDelivery['status'] }) {
  const cls = status === 'succeeded' ? 'pill-ok' : status === 'failed' ? 'pill-bad' : 'pill-wait';
  const text = status === 'succeeded' ? 'Delivered' : status === 'failed' ? 'Failed' : 'Retrying';
  return <span className={`pill ${cls}`}>{text}</span>;
}

function VerifyHelp() {
  return (
    <section className="card" aria-labelledby="verify-title">
      <h2 id="verify-title">Verifying requests</h2>
      <p className="muted">
        Each request carries <code>webhook-id</code>, <code>webhook-timestamp</code> and{' '}
        <code>webhook-signature</code> (the Standard Webhooks headers): an HMAC-SHA256 of{' '}
        <code>id.timestamp.body</code> with your secret. Refuse timestamps more than 5 minutes old
        and drop ids you have already handled. Any Standard Webhooks library checks all of it:
      </p>
      <pre tabIndex={0}>
        <code>{`import { Webhook } from 'standardwebhooks';
const wh = new Webhook(process.env.RADIO_WEBHOOK_SECRET);
// rawBody: the request body exactly as received
const event = wh.verify(rawBody, request.headers); // throws when forged or stale`}</code>
      </pre>
    </section>
  );
}

function formatTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, {
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
