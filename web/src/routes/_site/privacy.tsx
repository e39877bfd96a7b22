import { createFileRoute } from '@tanstack/react-router';
import { SupportEmail } from '../../components/SupportEmail';
import { pageMeta, withSuffix } from '../../lib/seo';

export const Route = createFileRoute('/_site/privacy')({
  head: () => ({
    meta: pageMeta({
      title: withSuffix('Privacy'),
      description: 'What Radio Broadcaster stores, and what it never does.',
    }),
  }),
  component: PrivacyPage,
});

function PrivacyPage() {
  return (
    <div className="container page prose">
      <p className="eyebrow">Privacy</p>
      <h1 data-testid="page-title">Privacy policy</h1>
      <p className="lead">We collect as little as we can, and we never sell it.</p>
      <h2>Listeners</h2>
      <p>
        Listening needs no account. The embeddable player sets no cookies, stores nothing in your
        browser, contains no analytics and makes no requests to third parties: it talks only to our
        server. To deliver audio, our servers see your IP address for the duration of the
        connection, and the address of the page the player is on (its origin), which is checked
        against the station's allowed domains. Listener counts are totals; we do not keep a history
        of who listened.
      </p>
      <h2>Cookies</h2>
      <p>
        This site sets one cookie, and only when you sign in: the session cookie that keeps you
        signed in. Station pages and the embedded player set none; station pages on this site
        remember your volume setting in your browser's local storage, which never leaves your
        device.
      </p>
      <h2>Broadcasters</h2>
      <p>
        An account holds your name, username, e-mail address and a password hash. Stations hold the
        name, address, description and now-playing information you give them, which are public.
      </p>
      <h2>Allowed domains</h2>
      <p>
        The list of websites allowed to embed your player is private to your account and used only
        to check where the player is playing.
      </p>
      <h2>Audio</h2>
      <p>Broadcasts are forwarded live to listeners and are not recorded or stored by us.</p>
      <h2>Deleting your data</h2>
      <p>Deleting your account removes your stations, domains and sessions.</p>
      <h2>Contact</h2>
      <p>
        Questions about your data: <SupportEmail />.
      </p>
    </div>
  );
}
