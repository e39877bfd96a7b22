import { useId, useState } from 'react';
import './access.css';

/** What the player's `private` state says, from the API's refusal (its own words, not the raw error). */
export function privateMessage(
  error: { message: string; tag?: string; status?: number } | null,
): string {
  if (!error) return '';
  switch (error.tag) {
    case 'WRONG_STATION_PASSWORD':
      return 'Wrong password. Try again.';
    case 'GRANT_REVOKED':
      return 'Your access to this private station was revoked.';
    case 'PRIVATE_STATION':
    case undefined:
      break;
    default: {
      const json = error.message.slice(error.message.indexOf('{'));
      try {
        const body = JSON.parse(json) as { message?: unknown };
        if (typeof body.message === 'string') return body.message;
      } catch {
        // not JSON
      }
    }
  }
  // the form under it says what to do
  return '';
}

/**
 * A private station's password form on the station page (the player's `private` state): the
 * listener enters the password the owner gave them; an invite link needs no form.
 */
export function PrivateUnlock({ onUnlock }: { onUnlock: (password: string) => void }) {
  const id = useId();
  const [password, setPassword] = useState('');
  return (
    <form
      className="private-unlock"
      data-testid="private-unlock"
      onSubmit={(e) => {
        e.preventDefault();
        if (!password) return;
        onUnlock(password);
        setPassword('');
      }}
    >
      <p className="muted small">
        This is a private station: open the invite link its owner sent you, or enter its password.
      </p>
      <label htmlFor={id} className="sr-only">
        Station password
      </label>
      <div className="row">
        <input
          className="input"
          id={id}
          type="password"
          autoComplete="current-password"
          placeholder="Station password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          data-testid="private-password"
          required
        />
        <button type="submit" className="btn" data-testid="private-submit">
          Listen
        </button>
      </div>
    </form>
  );
}
