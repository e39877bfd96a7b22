/**
 * Words the site and the player share, so a station reads the same on both (the web app imports
 * them from this package).
 */

/** Not live, on screen: the API's `offline` (never on air yet) and `ended` are one state to people. */
export const OFF_AIR = 'Off air';

/**
 * The broadcaster as shown everywhere: "Nina Night (@ninanight)", or just "@ninanight" when the
 * display name is empty or only repeats the username.
 */
export function broadcasterLabel(b: { username: string; name?: string | null }): string {
  const name = b.name?.trim() ?? '';
  const handle = `@${b.username}`;
  return name && name.toLowerCase() !== b.username.toLowerCase() ? `${name} (${handle})` : handle;
}
