import { useEffect, useState } from 'react';

/** Copies `text` and says so (also to screen readers) for two seconds. */
export function CopyButton({
  text,
  label = 'Copy',
  className = 'btn btn-sm',
  'aria-label': ariaLabel,
  'data-testid': testId,
}: {
  text: string;
  label?: string;
  className?: string;
  'aria-label'?: string;
  'data-testid'?: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <>
      <button
        type="button"
        className={className}
        aria-label={ariaLabel}
        onClick={() =>
          void (
            navigator.clipboard?.writeText(text) ?? Promise.reject(new Error('no clipboard'))
          ).then(
            () => setState('copied'),
            () => setState('failed'),
          )
        }
        data-testid={testId}
        data-state={state}
      >
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Press Ctrl+C' : label}
      </button>
      <span className="sr-only" role="status">
        {state === 'copied'
          ? 'Copied to the clipboard'
          : state === 'failed'
            ? 'Could not copy'
            : ''}
      </span>
    </>
  );
}
