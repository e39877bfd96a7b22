import { createHash } from 'node:crypto';
import type { Recording, RecordingTimelineEntry } from '@radiobroadcaster/contracts';

const esc = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // XML 1.0 allows no control characters but tab and line breaks.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** Podcasting 2.0's `podcast:guid`: UUIDv5 of the feed URL without scheme and trailing slashes. */
export function podcastGuid(feedUrl: string): string {
  const ns = Buffer.from('ead4c236bf5858c6a2c6a6b28d128cb6', 'hex');
  const name = feedUrl.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/+$/, '');
  const h = createHash('sha1').update(ns).update(name).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `HH:MM:SS`, as podcast apps show it. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(Math.floor(s / 3600))}:${p(Math.floor((s % 3600) / 60))}:${p(s % 60)}`;
}

/** The now-playing timeline as a Podcasting 2.0 JSON chapters file (version 1.2.0). */
export function chaptersJson(timeline: RecordingTimelineEntry[], durationSeconds: number) {
  const chapters = timeline
    .filter((e) => e.track && e.offsetSeconds < durationSeconds)
    .map((e) => ({
      startTime: Math.round(e.offsetSeconds * 100) / 100,
      title: e.artist ? `${e.artist} – ${e.track}` : e.track!,
    }));
  return { version: '1.2.0', chapters };
}

export interface FeedChannel {
  title: string;
  description: string;
  author: string;
  link: string;
  feedUrl: string;
  artworkUrl: string;
}

export interface FeedEpisode {
  recording: Recording;
  title: string;
  notes: string;
  chaptersUrl: string | null;
}

/**
 * RSS 2.0 with the iTunes and Podcasting 2.0 namespaces.  Notes are plain text: in
 * `description` as such, and as HTML (escaped) in `content:encoded`, which apps show as HTML.
 */
export function podcastXml(c: FeedChannel, episodes: FeedEpisode[]): string {
  const items = episodes.map(({ recording: r, title, notes, chaptersUrl }) => {
    const description =
      notes ||
      `Recorded live on ${new Date(r.startedAt).toUTCString().replace(' GMT', ' UTC')}. Replay: ${r.pageUrl}`;
    return `    <item>
      <title>${esc(title)}</title>
      <description>${esc(description)}</description>
      <content:encoded>${esc(`<p>${esc(description)}</p>`)}</content:encoded>
      <link>${esc(r.pageUrl)}</link>
      <guid isPermaLink="false">radiobroadcaster:recording:${r.id}</guid>
      <pubDate>${new Date(r.startedAt).toUTCString()}</pubDate>
      <enclosure url="${esc(r.url)}" length="${r.sizeBytes}" type="audio/ogg"/>
      <itunes:duration>${duration(r.durationSeconds)}</itunes:duration>
      <itunes:episodeType>full</itunes:episodeType>
      <itunes:explicit>false</itunes:explicit>
      <itunes:image href="${esc(c.artworkUrl)}"/>${
        chaptersUrl
          ? `
      <podcast:chapters url="${esc(chaptersUrl)}" type="application/json+chapters"/>`
          : ''
      }
    </item>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="https://podcastindex.org/namespace/1.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/">
  <channel>
    <title>${esc(c.title)}</title>
    <link>${esc(c.link)}</link>
    <description>${esc(c.description)}</description>
    <language>en</language>
    <generator>Radio Broadcaster</generator>
    <atom:link href="${esc(c.feedUrl)}" rel="self" type="application/rss+xml"/>
    <image>
      <url>${esc(c.artworkUrl)}</url>
      <title>${esc(c.title)}</title>
      <link>${esc(c.link)}</link>
    </image>
    <itunes:author>${esc(c.author)}</itunes:author>
    <itunes:owner><itunes:name>${esc(c.author)}</itunes:name></itunes:owner>
    <itunes:image href="${esc(c.artworkUrl)}"/>
    <itunes:category text="Music"/>
    <itunes:explicit>false</itunes:explicit>
    <itunes:type>episodic</itunes:type>
    <podcast:guid>${podcastGuid(c.feedUrl.split('?')[0]!)}</podcast:guid>
    <podcast:medium>podcast</podcast:medium>
    <podcast:locked>no</podcast:locked>
${items.join('\n')}
  </channel>
</rss>
`;
}
