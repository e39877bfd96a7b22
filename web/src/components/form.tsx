/**
 * The form kit: every form in the app is a `Form` with `Field`s, a `FormError` and a `SubmitButton`;
 * controls that act at once (outside a form's submit) are an `InputField` or a `SelectField`, and a
 * failure outside any form is an `ErrorNote`.
 *
 * - Values are validated with the contract's zod schema before anything is sent; problems show next
 *   to their field in plain words (`field-error-{name}`), and the first invalid field gets focus.
 * - A 400 from the server with `fields` lands on the same fields; anything else shows once, in plain
 *   words, in the form-level error (`form-error`, announced with role="alert").
 * - While the request runs the submit button shows its pending label and further submits are ignored.
 * - Typing in a field clears that field's problem.
 */
import {
  LIMITS,
  plainIssueMessage,
  fieldProblems,
  type FieldProblem,
} from '@radiobroadcaster/contracts';
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
  type SelectHTMLAttributes,
} from 'react';
import type { z } from 'zod';
import { ApiError, describeFields, errorMessage } from '../lib/api-error';
import { WarningIcon } from './icons';

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

/** What a form needs of the mutation that sends it; a `useMutation` result fits. */
export interface FormMutation<T> {
  mutate: (request: T, options?: { onSuccess?: () => void }) => void;
  error: unknown;
  isPending: boolean;
}

export interface FormProps<S extends z.ZodType> {
  /** The contract schema the request must satisfy; checked before anything is sent. */
  schema?: S;
  /** Builds the request from the fields' values (strings, trimmed except passwords). */
  toRequest?: (values: Values) => z.input<S>;
  /** Sends the request; its failure and its pending state show in the form. */
  mutation: FormMutation<z.output<S>>;
  /** Empties the fields once the request succeeded. */
  resetOnSuccess?: boolean;
  children: ReactNode;
  className?: string;
  'aria-label'?: string;
  'aria-labelledby'?: string;
  'data-testid'?: string;
}

export function Form<S extends z.ZodType>({
  schema,
  toRequest,
  mutation,
  resetOnSuccess = false,
  children,
  className,
  ...attrs
}: FormProps<S>) {
  const { error, isPending: pending } = mutation;
  const onSubmit = (request: z.output<S>, form: HTMLFormElement) =>
    mutation.mutate(request, resetOnSuccess ? { onSuccess: () => form.reset() } : undefined);
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
  const problem = problemFor(name);
  useEffect(() => register(name), [register, name]);
  const common = {
    ...input,
    ...controlLinks(id, hint, problem),
    name,
    required,
    'data-testid': `field-${name}`,
    onChange: (e: React.ChangeEvent<HTMLInputElement & HTMLTextAreaElement>) => {
      if (problem) clear(name);
      onChange?.(e);
    },
  };
  return (
    <FieldFrame
      id={id}
      label={
        <>
          {label}
          {!required && showOptional ? <span className="muted small"> (optional)</span> : null}
        </>
      }
      hint={hint}
      problem={problem}
      problemTestId={`field-error-${name}`}
      className={className}
    >
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
    </FieldFrame>
  );
}

/** A preset field: its kind fixes the input type and what browsers may fill in. */
type PresetFieldProps = Omit<FieldProps, 'type' | 'autoComplete' | 'label' | 'name'> &
  Partial<Pick<FieldProps, 'label' | 'name'>>;

/** An email address: to sign in or up, for a reset link, or the account's new one. */
export function EmailField({ label = 'Email', name = 'email', ...field }: PresetFieldProps) {
  return <Field label={label} name={name} type="email" autoComplete="email" required {...field} />;
}

/** A password: the account's own, or with `choosing` one being chosen (browsers may suggest one). */
export function PasswordField({
  label = 'Password',
  name = 'password',
  choosing = false,
  ...field
}: PresetFieldProps & { choosing?: boolean }) {
  return (
    <Field
      label={label}
      name={name}
      type="password"
      autoComplete={choosing ? 'new-password' : 'current-password'}
      maxLength={choosing ? LIMITS.passwordMax : undefined}
      required
      {...field}
    />
  );
}

/** The new password of a reset or a change. */
export function NewPasswordField({
  label = 'New password',
  name = 'newPassword',
  ...field
}: PresetFieldProps) {
  return <PasswordField label={label} name={name} choosing {...field} />;
}

/** A labelled input that acts as it is typed, outside a `Form`'s submit (the caller holds its value). */
export function InputField({
  label,
  problem,
  alert = false,
  ...input
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'className'> & {
  label: ReactNode;
  /** What is wrong with the value, shown under the input like a `Field`'s problem. */
  problem?: ReactNode;
  /** Announce the problem when it appears: for one that comes later than the typing (the server's). */
  alert?: boolean;
}) {
  const id = useId();
  return (
    <FieldFrame id={id} label={label} problem={problem} alert={alert}>
      <input className="input" {...input} {...controlLinks(id, null, problem)} />
    </FieldFrame>
  );
}

/** A labelled select that acts at once, outside a `Form`'s submit. */
export function SelectField({
  label,
  ...select
}: { label: ReactNode } & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'className'>) {
  const id = useId();
  return (
    <FieldFrame id={id} label={label}>
      <select className="select" id={id} {...select} />
    </FieldFrame>
  );
}

/** The control's id and what describes it: its hint and its problem (see `FieldFrame`). */
function controlLinks(id: string, hint: ReactNode, problem: ReactNode) {
  const describedBy = [hint ? `${id}-hint` : null, problem ? `${id}-error` : null]
    .filter(Boolean)
    .join(' ');
  return {
    id,
    'aria-invalid': problem ? true : undefined,
    'aria-describedby': describedBy || undefined,
  };
}

/** Label, control, problem and hint of every kind of field, in that order. */
function FieldFrame({
  id,
  label,
  hint,
  problem,
  problemTestId,
  alert = false,
  className,
  children,
}: {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  problem?: ReactNode;
  problemTestId?: string;
  alert?: boolean;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={`field${problem ? ' field-invalid' : ''}${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {problem ? (
        <span
          id={`${id}-error`}
          className="field-error"
          role={alert ? 'alert' : undefined}
          data-testid={problemTestId}
        >
          <WarningIcon />
          {problem}
        </span>
      ) : null}
      {hint ? (
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
      ) : null}
    </div>
  );
}

/** A failure outside any form (something that did not load), announced when it appears. */
export function ErrorNote({ children }: { children: ReactNode }) {
  return (
    <p className="form-error" role="alert">
      <WarningIcon />
      {children}
    </p>
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
