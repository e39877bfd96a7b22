import {
  DEMO_SLUG,
  DEMO_USERNAME,
  PRODUCT_NAME,
  PRODUCT_TAGLINE,
} from '@radiobroadcaster/contracts';
import { useQuery } from '@tanstack/react-query';
import { Link, createFileRoute } from '@tanstack/react-router';
import { posts, tutorials } from 'virtual:rb-content-facts';
import { HeroVisual } from '../../components/HeroVisual';
import { LoadError } from '../../components/LoadError';
import { StationCard } from '../../components/StationCard';
import { pageMeta } from '../../lib/seo';
import { sessionQueryOptions } from '../../queries/session.queries';
import { stationQueries } from '../../queries/station.queries';

export const Route = createFileRoute('/_site/')({
  head: () => ({ meta: pageMeta({ title: PRODUCT_NAME, description: PRODUCT_TAGLINE }) }),
  component: HomePage,
});

function HomePage() {
  const live = useQuery({ ...stationQueries.discover(), refetchInterval: 15_000 });
  const signedIn = Boolean(useQuery(sessionQueryOptions()).data);
  return (
    <>
      <section className="hero">
        <div className="container hero-inner has-visual">
          <div>
            <p className="eyebrow">Live audio, no install</p>
            <h1 className="hero-title" data-testid="home-title">
              {PRODUCT_TAGLINE}
            </h1>
            <p className="lead">
              Share the sound of your screen, one app or a microphone as a live station. Listeners
              tune in from any browser in about a second — and you decide which websites may embed
              your player.
            </p>
            <div className="actions">
              <Link
                to="/$username/$stationSlug"
                params={{ username: DEMO_USERNAME, stationSlug: DEMO_SLUG }}
                className="btn btn-primary btn-lg"
                data-testid="demo-link"
              >
                Listen to the demo
              </Link>
              {/* Signed out, straight to creating an account (then the studio); a plain visit to
                /studio opens Sign in instead. */}
              {signedIn ? (
                <Link to="/studio" className="btn btn-lg">
                  Start broadcasting
                </Link>
              ) : (
                <Link
                  to="/signin"
                  search={{ mode: 'signup', redirect: '/studio' }}
                  className="btn btn-lg"
                >
                  Start broadcasting
                </Link>
              )}
            </div>
          </div>
          <HeroVisual />
        </div>
      </section>

      <section className="container section" aria-labelledby="live-now">
        <h2 id="live-now">Live and recent stations</h2>
        {live.data && live.data.length > 0 ? (
          <ul className="station-grid" data-testid="live-stations">
            {live.data.map((s) => (
              <li key={s.id}>
                <StationCard station={s} />
              </li>
            ))}
          </ul>
        ) : live.isError || (live.isPending && live.failureCount > 0) ? (
          // Shown from the first failure on, while the query still retries behind it.
          <LoadError
            what="the stations"
            error={live.error ?? live.failureReason}
            onRetry={() => void live.refetch()}
          />
        ) : live.isPending ? (
          <p className="muted" data-testid="live-loading">
            Loading stations…
          </p>
        ) : (
          <p className="muted" data-testid="live-empty">
            No public stations are on air right now. Try the{' '}
            <Link
              to="/$username/$stationSlug"
              params={{ username: DEMO_USERNAME, stationSlug: DEMO_SLUG }}
            >
              demo station
            </Link>
            .
          </p>
        )}
      </section>

      <section className="container section" aria-labelledby="how">
        <h2 id="how">How it works</h2>
        <ol className="steps">
          <li className="card">
            <h3>Go live</h3>
            <p className="muted">
              On a Mac or any computer, open the studio in your browser and pick a tab, a window,
              your screen or a microphone. In Chrome or Edge, “Install Radio Broadcaster” keeps it
              in your Dock or taskbar like an app. OBS and other encoders work too.
            </p>
          </li>
          <li className="card">
            <h3>Share the link</h3>
            <p className="muted">
              Every station has a public address, <code>username/station-slug</code>. No sign-in to
              listen.
            </p>
          </li>
          <li className="card">
            <h3>Embed anywhere</h3>
            <p className="muted">
              Two lines of HTML put the player on WordPress, Wix, Squarespace, Webflow or any static
              page. <Link to="/embed">See how</Link>.
            </p>
          </li>
        </ol>
      </section>

      <section className="container section" aria-labelledby="guides">
        <h2 id="guides">Embed guides</h2>
        <ul className="steps" data-testid="home-tutorials">
          {tutorials.map((t) => (
            <li key={t.slug} className="card">
              <h3>
                <Link to="/tutorials/$slug" params={{ slug: t.slug }}>
                  {t.platform}
                </Link>
              </h3>
              <p className="muted">{t.summary}</p>
            </li>
          ))}
        </ul>
        <p style={{ marginTop: '1.25rem' }}>
          <Link to="/tutorials">All tutorials</Link> ·{' '}
          {posts[0] && (
            <>
              Latest from the blog:{' '}
              <Link to="/blog/$slug" params={{ slug: posts[0].slug }}>
                {posts[0].title}
              </Link>
            </>
          )}
        </p>
      </section>
    </>
  );
}
