import { siteOrigin } from '../lib/site';
import { CopyButton } from './CopyButton';
import { UrlText } from './UrlText';

/** The station's endless HTTP stream (`/listen/{username}/{slug}.ogg`) and its playlists. */
export function streamUrls(username: string, slug: string) {
  const base = `${siteOrigin()}/listen/${encodeURIComponent(username)}/${encodeURIComponent(slug)}`;
  return { ogg: `${base}.ogg`, m3u: `${base}.m3u`, pls: `${base}.pls` };
}

/** "Listen in VLC, radio apps and smart speakers": the stream URL to paste, with the playlists. */
export function StreamUrl({ username, slug }: { username: string; slug: string }) {
  const urls = streamUrls(username, slug);
  return (
    <>
      <h3>Listen in VLC, radio apps and smart speakers</h3>
      <p className="muted small">
        Paste this address into any player that opens a stream URL, or download a playlist (
        <a href={urls.m3u} data-testid="stream-m3u">
          .m3u
        </a>
        ,{' '}
        <a href={urls.pls} data-testid="stream-pls">
          .pls
        </a>
        ).
      </p>
      <div className="share-row">
        <code className="share-url" data-testid="stream-url">
          <UrlText url={urls.ogg} />
        </code>
        <CopyButton text={urls.ogg} label="Copy stream URL" data-testid="stream-url-copy" />
      </div>
    </>
  );
}
