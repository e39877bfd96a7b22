import { useId, useState } from 'react';
import './access.css';

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
