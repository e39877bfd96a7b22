import { useQuery } from '@tanstack/react-query';
import { siteOrigin } from '../lib/site';
import { CopyButton } from './CopyButton';
import { UrlText } from './UrlText';

/** The station's endless HTTP stream (`/listen/{username}/{slug}.ogg`) and its playlists. */
export function streamUrls(username: string, slug: string) {
  const base = `${siteOrigin()}/listen/${encodeURIComponent(username)}/${encodeURIComponent(slug)}`;
  return { ogg: `${base}.ogg`, m3u: `${base}.m3u`, pls: `${base}.pls` };
}

/**
 * Whether the plain stream URL plays for VLC: the owner may keep it private (403 to anything
 * without a signed link). Asked with a HEAD of the playlist, which costs no stream.
 */
function usePublicStream(m3u: string, enabled: boolean): boolean {
  const probe = useQuery({
    queryKey: ['public-stream', m3u],
    queryFn: async () => (await fetch(m3u, { method: 'HEAD', cache: 'no-store' })).status !== 403,
    enabled,
    staleTime: 60_000,
    retry: false,
  });
  return probe.data ?? true;
}

/**
 * "Listen in VLC, radio apps and smart speakers": the stream URL to paste, with the playlists.
 * `onlyIfPublic` leaves it out while the owner keeps the stream URL private (listeners' pages).
 */
export function StreamUrl({
  username,
  slug,
  onlyIfPublic = false,
}: {
  username: string;
  slug: string;
  onlyIfPublic?: boolean;
}) {
  const urls = streamUrls(username, slug);
  const isPublic = usePublicStream(urls.m3u, onlyIfPublic);
  if (onlyIfPublic && !isPublic) return null;
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
