/** Paths the API answers with a 302 to an outside address; never app routes. */
export const EXTERNAL_REDIRECT_PATHS = ['app-store', 'appstore', 'review', 'press', 'discord'];

const initialPath = typeof window === 'undefined' ? '' : window.location.pathname;

/**
 * When the app navigates to one of those paths itself, hand it to the server with a full page load.
 * If the server already served the app at that path (no redirect configured), stay and show the
 * not-found view instead of reloading forever.
 */
export function leaveForServerRedirect(name: string): boolean {
  const lower = name.toLowerCase();
  if (!EXTERNAL_REDIRECT_PATHS.includes(lower)) return false;
  if (initialPath.replace(/\/+$/, '') === `/${lower}`) return false;
  window.location.assign(`/${lower}`);
  return true;
}
