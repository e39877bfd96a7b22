import { PRODUCT_NAME } from '@radiobroadcaster/contracts';
import { Link, createFileRoute } from '@tanstack/react-router';
import { jsonLd, pageMeta, withSuffix } from '../../lib/seo';

const STEPS = [
  ['Create an account', 'Sign up with your name, a username and an e-mail address.'],
  [
    'Create a station',
    'In the studio, give it a name. Its address is your username and the station slug.',
  ],
  [
    'Pick a source',
    'A browser tab, a window or your whole screen (tick “Share audio”), or a microphone.',
  ],
  ['Go live', 'Press Go live. Listeners hear you within a second.'],
  [
    'Share',
    'Send the station link, or embed the player on your site with two lines of HTML (see the embed tutorials).',
  ],
] as const;

export const Route = createFileRoute('/_site/tutorial')({
  head: () => ({
    meta: pageMeta({
      title: withSuffix('Tutorial'),
      description: 'Go live in minutes: create a station, pick a source, share the link.',
    }),
    scripts: [
      jsonLd({
        '@type': 'HowTo',
        name: `Go live with ${PRODUCT_NAME}`,
        step: STEPS.map(([name, text], i) => ({
          '@type': 'HowToStep',
          position: i + 1,
          name,
          text,
        })),
      }),
    ],
  }),
  component: TutorialPage,
});

function TutorialPage() {
  return (
    <div className="container page prose">
      <p className="eyebrow">Tutorial</p>
      <h1 data-testid="page-title">Go live in five steps</h1>
      <p className="lead">
        Create a station, pick what to share, and listeners hear you in any browser about a second
        later. Prefer an encoder? Any WHIP client (OBS, ffmpeg, GStreamer) can publish too.
      </p>
      <ol className="steps">
        {STEPS.map(([name, text]) => (
          <li key={name} className="card">
            <h2>{name}</h2>
            <p className="muted">{text}</p>
          </li>
        ))}
      </ol>
      <div className="actions">
        <Link to="/studio" className="btn btn-primary">
          Open the studio
        </Link>
        <Link to="/embed" className="btn">
          Embed the player
        </Link>
        <Link to="/tutorials" className="btn">
          Embed tutorials
        </Link>
      </div>
    </div>
  );
}
