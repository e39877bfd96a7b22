import { useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { Link, createFileRoute } from '@tanstack/react-router';
import { AddDomainRequest, PRODUCT_NAME } from '@radiobroadcaster/contracts';
import { useRef } from 'react';
import { toast } from 'sonner';
import { AuthRequiredOrError } from '../../../components/AuthRequired';
import { api } from '../../../lib/api';
import { Field, Form, FormError, SubmitButton } from '../../../components/form';
import { requireSession } from '../../../lib/auth';
import { pageMeta, withSuffix } from '../../../lib/seo';
import { domainsQueryKey, domainsQueryOptions } from '../../../queries/domains.queries';

export const Route = createFileRoute('/_site/settings/domains')({
  // Signed-out visitors see 'Authentication required' with a way to sign in.
  beforeLoad: async ({ context: { queryClient } }) => ({
    session: await requireSession(queryClient),
  }),
  loader: ({ context: { queryClient } }) => queryClient.ensureQueryData(domainsQueryOptions()),
  head: () => ({
    meta: pageMeta({
      title: withSuffix('Allowed domains'),
      description: 'Choose which websites may play your stations.',
    }),
  }),
  errorComponent: AuthRequiredOrError,
  component: DomainsPage,
});

function DomainsPage() {
  const { data: domains } = useSuspenseQuery(domainsQueryOptions());
  const queryClient = useQueryClient();
  const inputRef = useRef<HTMLInputElement>(null);

  const add = useMutation({
    mutationFn: ({ domain }: AddDomainRequest) => api.domains.add(domain),
    // The server's reason is shown next to the field instead.
    meta: { errorToast: false },
    onSuccess: async (added) => {
      // Emptied at once: the form's resetOnSuccess would wait until the list below has refreshed.
      inputRef.current?.form?.reset();
      toast.success('Domain added', { description: added.domain });
      await queryClient.invalidateQueries({ queryKey: domainsQueryKey });
      inputRef.current?.focus();
    },
  });

  const remove = useMutation({
    mutationFn: (domain: string) => api.domains.remove(domain),
    meta: { errorTitle: 'Could not remove the domain' },
    onSuccess: async (_r, domain) => {
      toast.success('Domain removed', { description: domain });
      await queryClient.invalidateQueries({ queryKey: domainsQueryKey });
      inputRef.current?.focus();
    },
  });

  return (
    <div className="container narrow page" data-testid="domains-page">
      <header className="page-header">
        <p className="eyebrow">Settings</p>
        <h1>Allowed domains</h1>
        <p className="muted" data-testid="domains-rule">
          Websites on these domains may play your stations in the embedded player. While the list is
          empty, any website may embed them; add a domain and only the domains listed here (and{' '}
          {PRODUCT_NAME} itself) can.
        </p>
      </header>

      <Form
        className="card inline-form"
        schema={AddDomainRequest}
        mutation={add}
        aria-label="Add a domain"
      >
        <Field
          ref={inputRef}
          label="Domain"
          name="domain"
          placeholder="example.com"
          autoCapitalize="none"
          spellCheck={false}
          required
          hint="A host name such as example.com, without https:// or a path."
        />
        <SubmitButton pendingLabel="Adding…" data-testid="domain-add">
          Add domain
        </SubmitButton>
        <FormError />
      </Form>

      <h2 className="section-title" id="domain-list-title" style={{ marginTop: '2rem' }}>
        Your domains <span className="muted small">({domains.length})</span>
      </h2>
      {domains.length === 0 ? (
        <p className="muted" data-testid="domains-empty">
          No domains yet, so any website may embed your player.
        </p>
      ) : (
        <ul className="list" aria-labelledby="domain-list-title" data-testid="domain-list">
          {domains.map((d) => (
            <li key={d.domain} data-testid="domain-item" data-domain={d.domain}>
              <span className="grow">
                <strong>{d.domain}</strong>
                <br />
                <span className="muted small">
                  Added{' '}
                  <time dateTime={d.createdAt}>{new Date(d.createdAt).toLocaleDateString()}</time>
                </span>
              </span>
              <button
                type="button"
                className="btn btn-sm btn-danger"
                onClick={() => remove.mutate(d.domain)}
                disabled={remove.isPending && remove.variables === d.domain}
                aria-label={`Remove ${d.domain}`}
                data-testid="domain-remove"
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <p className="muted small" style={{ marginTop: '1.5rem' }} data-testid="domains-stream-note">
        A domain covers its site over http and https on any port. While you list domains, your
        stations' plain stream URLs (what VLC and radio apps open) are private unless you make them
        public again in the studio; the player keeps playing on these sites.
      </p>
      <p className="muted small">
        How to embed your player: <Link to="/embed">embed guide</Link>.
      </p>
    </div>
  );
}
