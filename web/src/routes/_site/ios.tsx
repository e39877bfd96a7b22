import { PRODUCT_NAME } from '@radiobroadcaster/contracts';
import { Link, createFileRoute } from '@tanstack/react-router';
import { pageMeta, withSuffix } from '../../lib/seo';

export const Route = createFileRoute('/_site/ios')({
  head: () => ({
    meta: pageMeta({
      title: withSuffix('iOS app'),
      description: 'Listen to and manage your stations from your iPhone.',
    }),
  }),
  component: IosPage,
});

function IosPage() {
  return (
    <div className="container page prose">
      <p className="eyebrow">iPhone and iPad</p>
      <h1 data-testid="page-title">{PRODUCT_NAME} for iOS</h1>
      <p className="lead">Your stations in your pocket, with lock-screen controls.</p>
      <p>
        Every station already plays in Safari on iPhone and iPad — open its link and press play. The
        iOS app adds a list of your favourite stations and background listening.
      </p>
      <h2>For listeners</h2>
      <ul>
        <li>Keep listening with the screen locked, with play and pause on the lock screen.</li>
        <li>See what is playing and how many people are listening, live.</li>
        <li>Open any station link, such as one shared in a message, straight in the app.</li>
      </ul>
      <h2>For broadcasters</h2>
      <ul>
        <li>Check which of your stations are live and who is listening.</li>
        <li>
          Update the now-playing track from your phone while your computer keeps broadcasting.
        </li>
      </ul>
      <p>
        Enjoying it? <a href="/review">Leave a review</a>; it helps other listeners find us.
      </p>
      <div className="actions">
        {/* Served by the API as a redirect to the App Store listing. */}
        <a href="/app-store" className="btn btn-primary">
          Download on the App Store
        </a>
        <Link
          to="/$username/$stationSlug"
          params={{ username: 'radiobroadcaster', stationSlug: 'demo' }}
          className="btn"
        >
          Try the demo in the browser
        </Link>
      </div>
    </div>
  );
}
