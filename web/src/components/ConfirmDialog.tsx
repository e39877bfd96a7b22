import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * A modal question before something that cannot be undone. The native `<dialog>` keeps focus inside
 * and closes on Escape; focus goes back to what opened it, or to `returnFocus()` when that is gone.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  pendingLabel,
  pending = false,
  confirmDisabled = false,
  onConfirm,
  onCancel,
  returnFocus,
  'data-testid': testId,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  pendingLabel: string;
  pending?: boolean;
  confirmDisabled?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  returnFocus?: () => HTMLElement | null;
  'data-testid'?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const bodyId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      opener.current =
        document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
      // The safe choice has focus (React's autoFocus is not the dialog's autofocus attribute).
      cancel.current?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);

  // Focus returns after the dialog is gone from the page's point of view.
  const wasOpen = useRef(false);
  useEffect(() => {
    if (open) {
      wasOpen.current = true;
      return;
    }
    if (!wasOpen.current) return;
    wasOpen.current = false;
    const target = opener.current?.isConnected ? opener.current : (returnFocus?.() ?? null);
    opener.current = null;
    target?.focus();
  }, [open, returnFocus]);

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onCancel={(e) => {
        e.preventDefault();
        if (!pending) onCancel();
      }}
      data-testid={testId}
    >
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (!pending && !confirmDisabled) onConfirm();
        }}
      >
        <h2 id={titleId}>{title}</h2>
        <div id={bodyId} className="dialog-body">
          {children}
        </div>
        <div className="actions">
          <button
            type="submit"
            className="btn btn-danger-solid"
            aria-disabled={pending || confirmDisabled || undefined}
            data-testid={testId ? `${testId}-confirm` : undefined}
          >
            {pending ? <span className="spinner" aria-hidden="true" /> : null}
            {pending ? pendingLabel : confirmLabel}
          </button>
          <button
            type="button"
            className="btn"
            ref={cancel}
            onClick={onCancel}
            disabled={pending}
            data-testid={testId ? `${testId}-cancel` : undefined}
          >
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
