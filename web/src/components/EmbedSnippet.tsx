import { useState } from 'react';
import { siteOrigin } from '../lib/site';
import './content.css';

/** The two-line embed code with this site's own origin, and a Copy button. */
export function EmbedSnippet({
  station = 'username/station-slug',
  theme = 'dark',
}: {
  station?: string;
  theme?: 'dark' | 'light';
}) {
  const code = `<script src="${siteOrigin()}/player.js" defer></script>
<radio-player station="${station}" theme="${theme}" autoplay="false"></radio-player>`;
  const [copied, setCopied] = useState(false);
  return (
    <div className="code-block">
      <pre aria-label="Embed code" data-testid="embed-snippet">
        <code>{code}</code>
      </pre>
      <button
        type="button"
        className="btn btn-sm copy"
        onClick={() =>
          navigator.clipboard?.writeText(code).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}
