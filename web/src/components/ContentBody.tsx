import { useRouter } from '@tanstack/react-router';
import { type MouseEvent, useEffect, useRef } from 'react';
import { toast } from 'sonner';
import { withSite } from '../lib/site';
import './content.css';

/**
 * The compiled markdown of a post or tutorial. The HTML comes only from our own content build
 * (content/build.mjs, which escapes raw HTML in the markdown), with this site's origin put in for
 * {SITE}. Site links navigate inside the app; code blocks get a Copy button.
 */
export function ContentBody({ html }: { html: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const router = useRouter();

  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    const buttons: HTMLButtonElement[] = [];
    for (const pre of root.querySelectorAll('pre')) {
      let wrap = pre.parentElement!;
      if (!wrap.classList.contains('code-block')) {
        wrap = document.createElement('div');
        wrap.className = 'code-block';
        pre.replaceWith(wrap);
        wrap.append(pre);
      }
      // A long line scrolls sideways: the keyboard must reach it too.
      pre.tabIndex = 0;
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'btn btn-sm copy';
      button.textContent = 'Copy';
      button.setAttribute('aria-label', 'Copy code');
      button.addEventListener('click', () => {
        const text = pre.textContent ?? '';
        navigator.clipboard?.writeText(text).then(
          () => toast.success('Copied to clipboard'),
          () => toast.error('Copy failed', { description: 'Select the code and copy it.' }),
        );
      });
      wrap.append(button);
      buttons.push(button);
    }
    return () => buttons.forEach((b) => b.remove());
  }, [html]);

  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    const a = (e.target as HTMLElement).closest('a');
    if (!a || a.target || e.defaultPrevented || e.button !== 0) return;
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const href = a.getAttribute('href') ?? '';
    if (!href.startsWith('/') || href.startsWith('//')) return;
    e.preventDefault();
    void router.navigate({ href });
  };

  return (
    // Delegated link clicks: the links keep their own keyboard behaviour.
    <div
      ref={ref}
      className="md"
      data-testid="content-body"
      onClick={onClick}
      dangerouslySetInnerHTML={{ __html: withSite(html) }}
    />
  );
}
