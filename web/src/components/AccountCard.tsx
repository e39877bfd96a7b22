import { useEffect, useId, useRef, type ReactNode } from 'react';

/** The one card of the account pages reached from a mail or a link: password reset, confirmation. */
export function AccountCardPage({ children }: { children: ReactNode }) {
  return (
    <div className="container narrow page">
      <div className="card account-card">{children}</div>
    </div>
  );
}

/**
 * Where an account step ended up: mail sent, password changed, link dead. With `focus` its heading
 * takes focus as it appears, so screen readers announce the outcome.
 */
export function Outcome({
  title,
  focus = false,
  children,
  'data-testid': testId,
}: {
  title: ReactNode;
  focus?: boolean;
  children: ReactNode;
  'data-testid': string;
}) {
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focus) heading.current?.focus();
  }, [focus]);
  return (
    <section aria-labelledby={id} data-testid={testId}>
      <h1 id={id} ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {children}
    </section>
  );
}
