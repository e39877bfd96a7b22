import { siteOrigin } from '../lib/site';
import { CopyButton } from './CopyButton';
import { UrlText } from './UrlText';
import './content.css';

/** The two-line embed code with this site's own origin: wrapped to fit, one button copies both. */
export function EmbedSnippet({
  station = 'username/station-slug',
  theme = 'dark',
}: {
  station?: string;
  theme?: 'dark' | 'light';
}) {
  const code = `<script src="${siteOrigin()}/player.js" defer></script>
<radio-player station="${station}" theme="${theme}" autoplay="false"></radio-player>`;
  return (
    <div className="snippet">
      <pre className="snippet-code" aria-label="Embed code" data-testid="embed-snippet">
        <code>
          <UrlText url={code} />
        </code>
      </pre>
      <div className="snippet-actions">
        <CopyButton text={code} label="Copy both lines" data-testid="embed-snippet-copy" />
      </div>
    </div>
  );
}
