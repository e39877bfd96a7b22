import type { ButtonHTMLAttributes, ReactNode } from 'react';

/** A button that runs a mutation taking no input; it cannot be pressed again while that runs. */
export function MutationButton({
  mutation,
  pendingLabel,
  disabled = false,
  className = 'btn',
  children,
  ...button
}: Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type' | 'onClick'> & {
  mutation: { mutate: (input: void) => void; isPending: boolean };
  /** Shown instead of the label while the mutation runs. */
  pendingLabel?: string;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className={className}
      onClick={() => mutation.mutate()}
      disabled={disabled || mutation.isPending}
      {...button}
    >
      {mutation.isPending && pendingLabel ? pendingLabel : children}
    </button>
  );
}
