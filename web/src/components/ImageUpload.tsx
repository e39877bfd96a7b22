import { IMAGE_RULES, IMAGE_TYPES, type ImageKind } from '@radiobroadcaster/contracts';
import { useId, useRef, useState, type DragEvent } from 'react';
import { ApiError, errorMessage } from '../lib/api-error';

const TOO_BIG = 'This image is larger than 8 MB. Use a smaller file.';
const WRONG_TYPE = 'Use a JPEG, PNG, WebP, GIF or AVIF image.';

/** What is wrong with a file before it is sent, in plain words (the server checks again). */
export function checkImageFile(file: File): string | null {
  if (!IMAGE_TYPES.includes(file.type)) return WRONG_TYPE;
  if (file.size > IMAGE_RULES.maxBytes) return TOO_BIG;
  return null;
}

/** The server's word on an upload: its field message, or a plain sentence for the status. */
export function uploadErrorText(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.fields[0]) return err.fields[0].message;
    if (err.status === 413) return TOO_BIG;
    if (err.status === 415) return WRONG_TYPE;
  }
  return errorMessage(err);
}

/**
 * A picture field: the current image (or a placeholder), a button and a drop zone to choose a new
 * one, Remove, and the problem with the last try next to it. `kind` sets the size rules shown.
 */
export function ImageUpload({
  kind,
  label,
  current,
  placeholder,
  pending,
  error,
  onUpload,
  onRemove,
}: {
  kind: ImageKind;
  label: string;
  current: string | null;
  placeholder: string;
  pending: boolean;
  error: unknown;
  onUpload: (file: File) => void;
  onRemove: () => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [local, setLocal] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const id = useId();
  const min = IMAGE_RULES[kind].minSide;
  const problem = local ?? (error ? uploadErrorText(error) : null);

  const choose = (file: File | undefined) => {
    if (!file) return;
    const wrong = checkImageFile(file);
    setLocal(wrong);
    if (!wrong) onUpload(file);
  };
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    if (!pending) choose(e.dataTransfer.files[0]);
  };

  return (
    <div className={`image-upload image-${kind}`} data-invalid={problem ? true : undefined}>
      <div
        className={`image-drop${dragging ? ' is-dragging' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
        aria-busy={pending || undefined}
      >
        {current ? (
          <img
            src={current}
            alt={`Current ${label.toLowerCase()}`}
            data-testid={`${kind}-preview`}
          />
        ) : (
          <span className="image-placeholder" aria-hidden="true">
            {placeholder}
          </span>
        )}
        {pending ? <span className="spinner image-spinner" aria-hidden="true" /> : null}
      </div>
      <div className="image-side">
        <p className="image-label" id={`${id}-label`}>
          {label}
        </p>
        <p className="hint" id={`${id}-hint`}>
          Square works best, at least {min}×{min} pixels. JPEG, PNG, WebP, GIF or AVIF, up to 8 MB.
          You can also drop a file on the picture.
        </p>
        <input
          ref={input}
          type="file"
          accept={IMAGE_TYPES.join(',')}
          className="sr-only"
          tabIndex={-1}
          aria-hidden="true"
          onChange={(e) => {
            choose(e.target.files?.[0]);
            e.target.value = '';
          }}
          data-testid={`${kind}-input`}
        />
        <div className="actions">
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => {
              if (!pending) input.current?.click();
            }}
            aria-disabled={pending || undefined}
            aria-describedby={`${id}-hint${problem ? ` ${id}-error` : ''}`}
            data-testid={`${kind}-choose`}
          >
            {pending
              ? 'Uploading…'
              : current
                ? `Change ${label.toLowerCase()}`
                : `Add ${label.toLowerCase()}`}
          </button>
          {current ? (
            <button
              type="button"
              className="btn btn-sm"
              onClick={onRemove}
              disabled={pending}
              data-testid={`${kind}-remove`}
            >
              Remove
            </button>
          ) : null}
        </div>
        <p
          id={`${id}-error`}
          className="field-error"
          role="alert"
          hidden={!problem}
          data-testid={`${kind}-error`}
        >
          {problem}
        </p>
      </div>
    </div>
  );
}
