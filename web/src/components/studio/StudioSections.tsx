import { Children, useEffect, useRef, useState, type ReactNode } from 'react';

interface SectionLink {
  id: string;
  title: string;
}

/**
 * Everything below the on-air console: each child is one card (a `<section>` with an `<h2>`), so a
 * new studio panel is one more line in the studio route. A row of links built from the cards' own
 * headings jumps to each one, so adding panels adds places to go rather than a longer scroll.
 */
export function StudioSections({ children }: { children: ReactNode }) {
  const root = useRef<HTMLDivElement>(null);
  const [links, setLinks] = useState<SectionLink[]>([]);
  const count = Children.count(children);

  useEffect(() => {
    const el = root.current;
    if (!el) return;
    const read = () => {
      const next: SectionLink[] = [];
      for (const section of el.querySelectorAll<HTMLElement>(
        ':scope > .studio-section > section',
      )) {
        const h = section.querySelector('h2');
        if (!h?.textContent) continue;
        if (!h.id) h.id = `studio-${next.length}-${section.dataset.testid ?? 'section'}`;
        next.push({ id: h.id, title: h.textContent.trim() });
      }
      setLinks((prev) =>
        prev.length === next.length &&
        prev.every((p, i) => p.id === next[i]!.id && p.title === next[i]!.title)
          ? prev
          : next,
      );
    };
    read();
    const observer = new MutationObserver(read);
    observer.observe(el, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [count]);

  const jump = (id: string) => {
    const h = document.getElementById(id);
    if (!h) return;
    h.scrollIntoView({ block: 'start' });
    if (!h.hasAttribute('tabindex')) h.setAttribute('tabindex', '-1');
    h.focus({ preventScroll: true });
  };

  return (
    <>
      {links.length > 1 ? (
        <nav className="studio-toc" aria-label="Studio sections" data-testid="studio-sections">
          <ul>
            {links.map((l) => (
              <li key={l.id}>
                <a
                  href={`#${l.id}`}
                  onClick={(e) => {
                    e.preventDefault();
                    jump(l.id);
                  }}
                >
                  {l.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      <div ref={root} className="studio-sections">
        {Children.map(children, (child) =>
          child ? <div className="studio-section">{child}</div> : null,
        )}
      </div>
    </>
  );
}
