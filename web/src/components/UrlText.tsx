import { Fragment } from 'react';

/**
 * Text with URLs in it (a link, the embed code) that may wrap after each slash (`<wbr>`: the text
 * and what is copied stay the same), so it never has to break mid-word; with `overflow-wrap:
 * break-word` a part breaks inside only when it alone is wider than the line.
 */
export function UrlText({ url }: { url: string }) {
  // After a path's slash: not inside `//` or `</`, nor before `>`.
  const parts = url.split(/(?<=(?<![</])\/)(?![/>])/);
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </>
  );
}
