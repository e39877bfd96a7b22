/**
 * The form kit: every form in the app is a `Form` with `Field`s, a `FormError` and a `SubmitButton`.
 *
 * - Values are validated with the contract's zod schema before anything is sent; problems show next
 *   to their field in plain words (`field-error-{name}`), and the first invalid field gets focus.
 * - A 400 from the server with `fields` lands on the same fields; anything else shows once, in plain
 *   words, in the form-level error (`form-error`, announced with role="alert").
 * - While the request runs the submit button shows its pending label and further submits are ignored.
 * - Typing in a field clears that field's problem.
 */
import { plainIssueMessage, fieldProblems, type FieldProblem } from '@radiobroadcaster/contracts';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
} from 'react';
import type { z } from 'zod';
import { ApiError, describeFields, errorMessage } from '../lib/api-error';

type Values = Record<string, string>;

interface FormContextValue {
  problemFor: (name: string) => string | undefined;
  register: (name: string) => () => void;
  clear: (name: string) => void;
  pending: boolean;
  formError: string | null;
  formErrorRef: React.RefObject<HTMLParagraphElement | null>;
}

const FormContext = createContext<FormContextValue | null>(null);

function useFormContext(component: string): FormContextValue {
  const ctx = useContext(FormContext);
  if (!ctx) throw new Error(`<${component}> must be inside a <Form>`);
  return ctx;
}

export interface FormProps<S extends z.ZodType> {
  /** The contract schema the request must satisfy; checked before `onSubmit` runs. */
  schema?: S;
  /** Builds the request from the fields' values (strings, trimmed except passwords). */
  toRequest?: (values: Values) => z.input<S>;
  onSubmit: (request: z.output<S>, form: HTMLFormElement) => void;
  /** The request's failure (a mutation's `error`). */
  error?: unknown;
  /** True while the request runs. */
  pending?: boolean;
  children: ReactNode;
  className?: string;
  'aria-label'?: string;
  'aria-labelledby'?: string;
  'data-testid'?: string;
}

export function Form<S extends z.ZodType>({
  schema,
  toRequest,
  onSubmit,
  error,
  pending = false,
  children,
  className,
  ...attrs
}: FormProps<S>) {
  const formRef = useRef<HTMLFormElement>(null);
  const formErrorRef = useRef<HTMLParagraphElement>(null);
  const [fields, setFields] = useState<ReadonlySet<string>>(new Set());
  const [clientProblems, setClientProblems] = useState<FieldProblem[]>([]);
  const [cleared, setCleared] = useState<ReadonlySet<string>>(new Set());

  // A new server answer shows all of its problems again.
  useEffect(() => setCleared(new Set()), [error]);

  const serverProblems = useMemo(() => (error instanceof ApiError ? error.fields : []), [error]);
  const problems = clientProblems.length > 0 ? clientProblems : serverProblems;
  const shown = problems.filter((p) => !cleared.has(p.path));

  const problemFor = useCallback(
    (name: string) => shown.find((p) => p.path === name)?.message,
    [shown],
  );
  const register = useCallback((name: string) => {
    setFields((f) => (f.has(name) ? f : new Set(f).add(name)));
    return () =>
      setFields((f) => {
        const next = new Set(f);
        next.delete(name);
        return next;
      });
  }, []);
  const clear = useCallback((name: string) => {
    setCleared((c) => (c.has(name) ? c : new Set(c).add(name)));
    setClientProblems((ps) =>
      ps.some((p) => p.path === name) ? ps.filter((p) => p.path !== name) : ps,
    );
  }, []);

  // Problems of fields this form does not show, and failures that are not about fields.
  const unmatched = shown.filter((p) => !fields.has(p.path));
  const formError =
    clientProblems.length === 0 && error && !(error instanceof ApiError && error.fields.length > 0)
      ? errorMessage(error)
      : unmatched.length > 0
        ? describeFields(unmatched)
        : null;

  // After a failed submit, focus goes where the problem is: the first invalid field, else the message.
  const focusProblem = useCallback((list: FieldProblem[]) => {
    const form = formRef.current;
    if (!form) return;
    for (const p of list) {
      const el = form.elements.namedItem(p.path);
      if (el instanceof HTMLElement) {
        el.focus();
        return;
      }
    }
    formErrorRef.current?.focus();
  }, []);
  useEffect(() => {
    if (error) focusProblem(error instanceof ApiError ? error.fields : []);
  }, [error, focusProblem]);

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (pending) return;
    const form = e.currentTarget;
    const values = readValues(form);
    const request = toRequest ? toRequest(values) : values;
    if (schema) {
      const parsed = schema.safeParse(request, { error: plainIssueMessage });
      if (!parsed.success) {
        const list = fieldProblems(parsed.error);
        setClientProblems(list);
        setCleared(new Set());
        focusProblem(list);
        return;
      }
      setClientProblems([]);
      onSubmit(parsed.data as z.output<S>, form);
      return;
    }
    setClientProblems([]);
    onSubmit(request as z.output<S>, form);
  };

  const ctx: FormContextValue = { problemFor, register, clear, pending, formError, formErrorRef };
  return (
    <FormContext.Provider value={ctx}>
      <form
        ref={formRef}
        className={className}
        onSubmit={submit}
        noValidate
        aria-busy={pending || undefined}
        {...attrs}
      >
        {children}
      </form>
    </FormContext.Provider>
  );
}

/** Every named control's value: trimmed text, passwords as typed. */
function readValues(form: HTMLFormElement): Values {
  const values: Values = {};
  for (const el of Array.from(form.elements)) {
    if (
      !(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) ||
      !el.name ||
      el.disabled
    ) {
      continue;
    }
    if (el instanceof HTMLInputElement && /^(radio|checkbox)$/.test(el.type) && !el.checked)
      continue;
    values[el.name] = el.type === 'password' ? el.value : el.value.trim();
  }
  return values;
}

export interface FieldProps extends Omit<
  InputHTMLAttributes<HTMLInputElement & HTMLTextAreaElement>,
  'name' | 'id'
> {
  label: string;
  name: string;
  hint?: ReactNode;
  multiline?: boolean;
  /** Marks the label "(optional)" when the field is not required. */
  showOptional?: boolean;
  ref?: React.Ref<HTMLInputElement | HTMLTextAreaElement>;
}

/** A labelled input (or textarea) with its hint and its own problem, linked for screen readers. */
export function Field({
  label,
  name,
  hint,
  multiline,
  showOptional = true,
  required,
  className,
  onChange,
  ref,
  ...input
}: FieldProps) {
  const { problemFor, register, clear } = useFormContext('Field');
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const problem = problemFor(name);
  useEffect(() => register(name), [register, name]);
  const describedBy = [hint ? hintId : null, problem ? errorId : null].filter(Boolean).join(' ');
  const common = {
    ...input,
    id,
    name,
    required,
    'aria-invalid': problem ? true : undefined,
    'aria-describedby': describedBy || undefined,
    'data-testid': `field-${name}`,
    onChange: (e: React.ChangeEvent<HTMLInputElement & HTMLTextAreaElement>) => {
      if (problem) clear(name);
      onChange?.(e);
    },
  };
  return (
    <div className={`field${problem ? ' field-invalid' : ''}${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>
        {label}
        {!required && showOptional ? <span className="muted small"> (optional)</span> : null}
      </label>
      {multiline ? (
        <textarea
          className="textarea"
          ref={ref as React.Ref<HTMLTextAreaElement> | undefined}
          {...common}
        />
      ) : (
        <input
          className="input"
          autoComplete="off"
          ref={ref as React.Ref<HTMLInputElement> | undefined}
          {...common}
        />
      )}
      {problem ? (
        <span id={errorId} className="field-error" data-testid={`field-error-${name}`}>
          <WarningIcon />
          {problem}
        </span>
      ) : null}
      {hint ? (
        <span id={hintId} className="hint">
          {hint}
        </span>
      ) : null}
    </div>
  );
}

/** The form's own failure (not about one field), announced when it appears. */
export function FormError() {
  const { formError, formErrorRef } = useFormContext('FormError');
  return (
    <p
      ref={formErrorRef}
      className="form-error"
      role="alert"
      tabIndex={-1}
      data-testid="form-error"
      hidden={!formError}
    >
      {formError ? (
        <>
          <WarningIcon />
          {formError}
        </>
      ) : null}
    </p>
  );
}

/** The submit button: shows `pendingLabel` and ignores clicks while the request runs, keeping focus. */
export function SubmitButton({
  children,
  pendingLabel,
  className = 'btn btn-primary',
  'data-testid': testId,
}: {
  children: ReactNode;
  pendingLabel: string;
  className?: string;
  'data-testid'?: string;
}) {
  const { pending } = useFormContext('SubmitButton');
  return (
    <button
      type="submit"
      className={className}
      aria-disabled={pending || undefined}
      data-pending={pending || undefined}
      data-testid={testId}
    >
      {pending ? <span className="spinner" aria-hidden="true" /> : null}
      {pending ? pendingLabel : children}
    </button>
  );
}

function WarningIcon() {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path
        d="M12 3 2 21h20L12 3zm0 5.5 6.2 11H5.8L12 8.5zM11 11v4h2v-4h-2zm0 5v2h2v-2h-2z"
        fill="currentColor"
      />
    </svg>
  );
}
