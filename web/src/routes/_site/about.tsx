import { PRODUCT_NAME, PRODUCT_TAGLINE } from '@radiobroadcaster/contracts';
import { Link, createFileRoute } from '@tanstack/react-router';
import { SupportEmail } from '../../components/SupportEmail';
import { pageMeta, withSuffix } from '../../lib/seo';

export const Route = createFileRoute('/_site/about')({
  head: () => ({
    meta: pageMeta({
      title: withSuffix('About'),
      description: 'Why we built Radio Broadcaster: live audio, low latency, no installs.',
    }),
  }),
  component: AboutPage,
});

function AboutPage() {
  return (
    <div className="container page prose">
      <p className="eyebrow">About</p>
      <h1 data-testid="page-title">About {PRODUCT_NAME}</h1>
      <p className="lead">{PRODUCT_TAGLINE}.</p>
      <p>
        {PRODUCT_NAME} turns whatever your computer is playing into a live station. Share the sound
        of your whole screen, one application or a microphone; listeners open a link and hear it
        within a second, in any modern browser, with nothing to install.
      </p>
      <h2>For broadcasters</h2>
      <ul>
        <li>
          Go live from the <Link to="/studio">studio</Link> in your browser, on a Mac or any other
          computer, or with any WHIP encoder (OBS, ffmpeg, GStreamer). In Chrome or Edge, install
          the studio (“Install Radio Broadcaster” in the address bar) to open it from your Dock,
          taskbar or app launcher like any other app.
        </li>
        <li>
          Every station gets a public address: <code>username/station-slug</code>.
        </li>
        <li>
          Tell listeners what is playing; they see it update live, along with the listener count.
        </li>
        <li>Decide which websites may embed your player.</li>
      </ul>
      <h2>For listeners</h2>
      <p>
        No account and no app: press play. The audio travels over WebRTC with Opus, the same
        technology as video calls, so it stays close to real time.
      </p>
      <h2>For website owners</h2>
      <p>
        Two lines of HTML add a player to WordPress, Wix, Squarespace, Webflow or a static page.{' '}
        <Link to="/embed">Read the embed guide</Link>, or pick your platform in the{' '}
        <Link to="/tutorials">tutorials</Link>.
      </p>
      <h2>News</h2>
      <p>
        What we are working on is in the <Link to="/blog">blog</Link> (also as an{' '}
        <a href="/blog/rss.xml">RSS feed</a>).
      </p>
      <h2>Contact</h2>
      <p>
        Support is by e-mail at <SupportEmail />. Press can find logos and screenshots in the{' '}
        <a href="/press">press kit</a>, and the community is on <a href="/discord">Discord</a>.
      </p>
    </div>
  );
}
