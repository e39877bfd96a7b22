/** The httpOnly cookie that carries the session JWT in browsers. */
export const SESSION_COOKIE = 'rb_session';

/** Name of the passport-jwt strategy (registered on a per-app passport instance). */
export const JWT_STRATEGY = 'rb-session-jwt';

/** Email verification (and new-address) links stay valid this long. */
export const EMAIL_VERIFICATION_TTL_MS = 24 * 3_600_000;

/** Password reset links stay valid this long. */
export const PASSWORD_RESET_TTL_MS = 3_600_000;

/** Deleting an account without the password needs a session at most this old (better-auth's `freshAge`). */
export const FRESH_SESSION_MS = 24 * 3_600_000;
