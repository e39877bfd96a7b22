import { PRODUCT_NAME, type Station } from '@radiobroadcaster/contracts';
import { broadcasterLabel } from '@radiobroadcaster/player';
import { Link, createFileRoute } from '@tanstack/react-router';
import { useEffect } from 'react';
import '@radiobroadcaster/player/register';
import { z } from 'zod';
import { EmbedExtras } from '../../../components/follow/FollowButton';
import { stationRoute } from '../../../lib/station-route';
import { stationQueries } from '../../../queries/station.queries';

/** Theme is light or dark; anything else (or nothing) becomes dark, the documented default. */
const EmbedSearch = z.object({
  theme: z.enum(['light', 'dark']).catch('dark'),
  /** A private station's invite token: the player admits its holder. */
  invite: z.string().max(2048).optional().catch(undefined),
});
export type EmbedTheme = z.infer<typeof EmbedSearch>['theme'];

export const Route = createFileRoute('/embed/$username/$stationSlug')({
  validateSearch: (search: Record<string, unknown>): { theme?: EmbedTheme; invite?: string } =>
    EmbedSearch.parse(search),
  ...stationRoute(
    (p: { username: string; stationSlug: string }) =>
      stationQueries.embedBySlug(p.username, p.stationSlug),
    { breadcrumb: false },
  ),
  component: EmbedPlayerPage,
});

function useThemeClass(theme: EmbedTheme) {
  useEffect(() => {
    const root = document.documentElement;
    root.dataset.theme = theme;
    root.classList.add('embed-doc');
    return () => {
      delete root.dataset.theme;
      root.classList.remove('embed-doc');
    };
  }, [theme]);
}

/**
 * The site the server refused to let play this station (it framed the page without being on the
 * owner's allowed domains), from the page the server sent; null when playing is fine.
 */
function refusedSite(): string | null {
  return document.querySelector('meta[name="rb-embed-refused"]')?.getAttribute('content') ?? null;
}

function EmbedPlayerPage() {
  const { station, error } = Route.useLoaderData();
  const { theme = 'dark', invite } = Route.useSearch();
  useThemeClass(theme);
  const refused = refusedSite();
  // The demo too: the server publishes it as a real station.
  const full = station !== null && refused === null;
  return (
    <main
      className={full ? 'embed embed-full' : 'embed'}
      data-theme={theme}
      data-testid="embed"
      id="main"
    >
      {station && refused !== null ? (
        <EmbedRefused station={station} site={refused} />
      ) : full ? (
        <>
          {/* The frame's own heading, for screen readers; the player shows the name itself. */}
          <h1 className="sr-only" data-testid="embed-heading">
            {station.name} by {broadcasterLabel(station.broadcaster)}
          </h1>
          {/* The very player the two-line embed puts on a page, filling the frame. */}
          <radio-player
            station={`${station.broadcaster.username}/${station.slug}`}
            theme={theme}
            api-base={location.origin}
            {...(invite ? { invite } : {})}
            data-testid="embed-player"
          />
          <EmbedExtras station={station} />
        </>
      ) : (
        <div className="embed-card embed-error" role="alert" data-testid="embed-error">
          <h1 className="embed-error-title">Station unavailable</h1>
          <p className="muted small">{error ?? 'Unknown error'}</p>
        </div>
      )}
    </main>
  );
}

/** What a site the owner did not list shows instead of the browser's "refused to connect". */
function EmbedRefused({ station, site }: { station: Station; site: string }) {
  const username = station.broadcaster.username;
  return (
    <div className="embed-card embed-error" role="alert" data-testid="embed-refused">
      <h1 className="embed-error-title">This station can't be played on this site.</h1>
      <p className="muted small">
        The owner of {station.name} lets the player run only on the websites they list, and {site}{' '}
        is not one of them.
      </p>
      <p className="small">
        <Link
          to="/$username/$stationSlug"
          params={{ username, stationSlug: station.slug }}
          target="_blank"
          rel="noopener"
        >
          Listen on {PRODUCT_NAME}
          <span className="sr-only"> (opens in a new tab)</span>
        </Link>
      </p>
    </div>
  );
}
