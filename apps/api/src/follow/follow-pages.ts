/** The small pages a confirmation or unsubscribe link answers with (no sign-in, no script). */
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function linkPage(opts: {
  title: string;
  message: string;
  /** A form posting back to the same link (a button), for GETs that must not act by themselves. */
  action?: { url: string; label: string };
  back?: { url: string; label: string };
}): string {
  const form = opts.action
    ? `<form method="post" action="${esc(opts.action.url)}"><button type="submit">${esc(opts.action.label)}</button></form>`
    : '';
  const back = opts.back
    ? `<p><a href="${esc(opts.back.url)}">${esc(opts.back.label)}</a></p>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(opts.title)} · Radio Broadcaster</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;background:#0f1115;color:#e8e8ea;display:grid;place-items:center;min-height:100vh;margin:0;padding:1rem;box-sizing:border-box}
main{max-width:28rem;background:#181b22;border:1px solid #2a2f3a;border-radius:12px;padding:2rem}
h1{font-size:1.35rem;margin:0 0 .75rem}p{margin:.5rem 0 1rem;color:#c5c7cf}
button{font:inherit;font-weight:600;background:#e0483e;color:#fff;border:0;border-radius:8px;padding:.6rem 1.2rem;cursor:pointer}
a{color:#ff8a80}
</style></head>
<body><main><h1>${esc(opts.title)}</h1><p>${esc(opts.message)}</p>${form}${back}</main></body></html>`;
}
