/** Who is calling, set on the request by `SessionGuard` / `OptionalSessionGuard`. */
export interface AuthContext {
  userId: string;
  sessionId: string;
  username: string;
  /** How the session token arrived: the browser cookie, or `Authorization: Bearer` (apps, CLI). */
  via: 'cookie' | 'bearer';
}
