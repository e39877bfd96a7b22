import { DEMO_SLUG, DEMO_USERNAME } from '@radiobroadcaster/contracts';
import '@radiobroadcaster/player/register';
import { Link, createFileRoute } from '@tanstack/react-router';
import { useState } from 'react';
import { playerSize, tutorials } from 'virtual:rb-content-facts';
import { EmbedSnippet } from '../../components/EmbedSnippet';
import { InputField } from '../../components/form';
import { SupportEmail } from '../../components/SupportEmail';
import { siteOrigin } from '../../lib/site';
import { pageMeta, withSuffix } from '../../lib/seo';

export const Route = createFileRoute('/_site/embed')({
  head: () => ({
    meta: pageMeta({
      title: withSuffix('Embed a station'),
      description: 'Put a live station on any website with one script and one element.',
    }),
  }),
  component: EmbedInfoPage,
});

const RESPONSIVE_CSS = `radio-player {
  max-width: 800px;
  height: 400px;
  margin: 0 auto; /* centred */
}
@media (min-width: 768px) {
  radio-player { height: 550px; }
}
@media (min-width: 1024px) {
  radio-player { height: 650px; }
}`;

const DEMO_REF = `${DEMO_USERNAME}/${DEMO_SLUG}`;
const STATION_REF = /^[a-z0-9_-]+\/[a-z0-9-]+$/i;

/**
 * The two lines, and the player they make, side by side: type a station address and both follow
 * (the demo plays until then).
 */
function EmbedPlayground() {
  const [station, setStation] = useState('');
  const [theme, setTheme] = useState<'dark' | 'light'>('dark');
  const ref = station.trim();
  const valid = ref === '' || STATION_REF.test(ref);
  return (
    <section className="playground" aria-labelledby="playground-title">
      <h2 id="playground-title" className="sr-only">
        Embed code and live preview
      </h2>
      <div className="playground-fields">
        <InputField
          label="Your station (username/station-slug)"
          value={station}
          onChange={(e) => setStation(e.target.value)}
          placeholder={DEMO_REF}
          spellCheck={false}
          autoCapitalize="off"
          autoComplete="off"
          problem={valid ? undefined : `Use the form username/station-slug, as in ${DEMO_REF}.`}
          data-testid="playground-station"
        />
        <fieldset className="field playground-theme">
          <legend>Theme</legend>
          {(['dark', 'light'] as const).map((t) => (
            <label key={t}>
              <input
                type="radio"
                name="playground-theme"
                value={t}
                checked={theme === t}
                onChange={() => setTheme(t)}
              />{' '}
              {t}
            </label>
          ))}
        </fieldset>
      </div>
      <EmbedSnippet station={ref && valid ? ref : undefined} theme={theme} />
      <figure className="playground-preview">
        <radio-player
          station={ref && valid ? ref : DEMO_REF}
          theme={theme}
          api-base={location.origin}
          data-testid="playground-player"
        />
        <figcaption className="muted small">
          Live preview{ref && valid ? '' : ' with the demo station'}: this is what the two lines
          show on your page.
        </figcaption>
      </figure>
    </section>
  );
}

function EmbedInfoPage() {
  const origin = siteOrigin();
  return (
    <div className="container page prose">
      <p className="eyebrow">Embed</p>
      <h1 data-testid="page-title">Put your station on any website</h1>
      <p className="lead">
        Two lines of HTML: load the player script, then add the player element. Works on WordPress,
        Wix, Squarespace, Webflow and static HTML.
      </p>
      <EmbedPlayground />
      <p>
        Replace <code>username/station-slug</code> with your station's address: for{' '}
        <code>{origin}/alex/night-shift</code> it is <code>alex/night-shift</code>.
      </p>
      <p>
        The player is also published on npm as <code>@radiobroadcaster/player</code>, so public CDNs
        serve it, for example <code>https://unpkg.com/@radiobroadcaster/player/dist/player.js</code>
        . A CDN copy needs <code>api-base="{origin}"</code> on the element to find the stations.
      </p>

      <h2>Attributes</h2>
      <dl className="kv">
        <dt>
          <code>station</code>
        </dt>
        <dd>Required: your station address, username/station-slug.</dd>
        <dt>
          <code>theme</code>
        </dt>
        <dd>
          <code>light</code> or <code>dark</code> (default dark). Change it at any time; the player
          restyles without reconnecting.
        </dd>
        <dt>
          <code>autoplay</code>
        </dt>
        <dd>
          <code>true</code> or <code>false</code> (default false). We advise against it: browsers
          may block sound until the visitor clicks, and the player then shows “Click to play”.
        </dd>
        <dt>
          <code>api-base</code>
        </dt>
        <dd>Optional: the Radio Broadcaster origin. Default: where the script was loaded from.</dd>
      </dl>

      <h2>Sizes</h2>
      <p>
        The player fills the width of its container and is 350 px tall by default. Size it with CSS
        like any block element.
      </p>
      <ul>
        <li>
          Minimum 350×300 (400×300 for Wix's Embed HTML box; at least 400 px tall on Webflow).
        </li>
        <li>Recommended: 400×350 compact, 600×450 standard, 800×600 large.</li>
        <li>Maximum widths of 800 to 1000 px read best on wide screens.</li>
      </ul>
      <img
        src="/images/tutorials/player-sizes.svg"
        alt="Player sizes: 350×300 minimum, 400×350 compact, 600×450 standard, 800×600 large"
        width={960}
        height={420}
        style={{ maxWidth: '100%', height: 'auto' }}
      />
      <p>A responsive height, centred:</p>
      <pre tabIndex={0}>
        <code>{RESPONSIVE_CSS}</code>
      </pre>

      <h2>Browser support</h2>
      <ul data-testid="browser-support">
        <li>Chrome 90+</li>
        <li>Firefox 88+</li>
        <li>Safari 14+</li>
        <li>Edge 90+</li>
        <li>Mobile browsers (iOS Safari, Chrome and Firefox on Android)</li>
        <li>Internet Explorer is not supported.</li>
      </ul>

      <h2>Small, secure and private</h2>
      <ul data-testid="player-facts">
        <li>
          About {playerSize} gzipped, with no dependencies. Visitors who never press play download
          nothing else.
        </li>
        <li>Served over HTTPS; audio travels over WebRTC (Opus), which is always encrypted.</li>
        <li>
          No cookies, no tracking, no analytics and no third-party requests: the player talks only
          to the Radio Broadcaster server.
        </li>
        <li>
          Nothing is stored in the visitor's browser, so the player needs no cookie consent; see our{' '}
          <Link to="/privacy">privacy policy</Link>.
        </li>
      </ul>

      <h2>Allowed domains</h2>
      <p>
        By default any website may play your station. List sites in{' '}
        <Link to="/settings/domains">allowed domains</Link> (<code>example.com</code> or{' '}
        <code>*.example.com</code>) and only those can.
      </p>

      <h2>Listen in VLC, radio apps and smart speakers</h2>
      <p>
        Every live station is also a plain HTTP stream (Ogg/Opus) at{' '}
        <code data-testid="stream-url-pattern">
          {siteOrigin()}/listen/username/station-slug.ogg
        </code>
        , with <code>.m3u</code> and <code>.pls</code> playlists beside it: paste it into VLC, a
        radio app, a smart speaker or a car dashboard. Web pages may only play it from your allowed
        domains; the owner can turn the public stream URL off in the studio.
      </p>

      <h2>Step-by-step guides</h2>
      <ul>
        {tutorials.map((t) => (
          <li key={t.slug}>
            <Link to="/tutorials/$slug" params={{ slug: t.slug }}>
              {t.platform}
            </Link>
            : {t.summary}
          </li>
        ))}
      </ul>

      <h2>Troubleshooting</h2>
      <ul>
        <li>
          Player not showing: check the station format (username/station-slug), that both the script
          and the element are on the page, and the browser console.
        </li>
        <li>No audio: the station must be live; autoplay may be blocked — click play.</li>
        <li>Code appears as text: use an HTML, code or embed block (HTML mode).</li>
        <li>
          TypeScript error that <code>radio-player</code> is not among the intrinsic JSX elements:
          add the declarations file and include it in the compiler config (
          <Link to="/tutorials/$slug" params={{ slug: 'react-nextjs-radio-broadcaster' }}>
            guide
          </Link>
          ).
        </li>
      </ul>
      <p>
        Still stuck? Write to <SupportEmail />.
      </p>

      <h2>Preview</h2>
      <p>
        The player page for iframes:{' '}
        <Link
          to="/embed/$username/$stationSlug"
          params={{ username: DEMO_USERNAME, stationSlug: DEMO_SLUG }}
          search={{ theme: 'light' }}
        >
          demo, light theme
        </Link>{' '}
        ·{' '}
        <Link
          to="/embed/$username/$stationSlug"
          params={{ username: DEMO_USERNAME, stationSlug: DEMO_SLUG }}
          search={{ theme: 'dark' }}
        >
          demo, dark theme
        </Link>
        .
      </p>
    </div>
  );
}
