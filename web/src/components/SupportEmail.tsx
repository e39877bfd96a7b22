import { useSupportEmail } from '../lib/site-info';

/** A mailto link to the configured support address (support is by e-mail only). */
export function SupportEmail({ fallback = 'our support address' }: { fallback?: string }) {
  const email = useSupportEmail();
  if (!email) return <span>{fallback}</span>;
  return (
    <a href={`mailto:${email}`} data-testid="support-email">
      {email}
    </a>
  );
}
