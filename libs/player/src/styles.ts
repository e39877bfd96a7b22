/** The element's stylesheet (adopted into the shadow root; no inline style attributes, so strict CSP is fine). */
export const STYLES = `
:host{display:block;box-sizing:border-box;width:100%;height:350px;min-width:280px;min-height:300px;contain:content;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
:host([hidden]){display:none}
*,*::before,*::after{box-sizing:border-box}
.card{--bg:#0f1115;--fg:#f5f6f8;--muted:#a0a7b4;--line:#2a2f3a;--panel:#181b22;--accent:var(--radio-player-accent,#e5484d);--on-accent:#fff;
position:relative;display:flex;flex-direction:column;width:100%;height:100%;overflow:hidden;border-radius:var(--radio-player-radius,12px);
background:var(--radio-player-background,var(--bg));color:var(--fg);border:1px solid var(--line);container-type:inline-size;padding:16px;gap:12px}
.card.light{--bg:#fff;--fg:#14161a;--muted:#5b6270;--line:#dfe2e7;--panel:#f3f4f6;--accent:var(--radio-player-accent,#d9363e)}
.top{display:flex;align-items:center;justify-content:space-between;gap:8px;font-size:12px;color:var(--muted)}
.badge{display:inline-flex;align-items:center;gap:6px;padding:3px 8px;border-radius:999px;background:var(--panel);font-weight:600;letter-spacing:.04em;text-transform:uppercase}
.dot{width:8px;height:8px;border-radius:50%;background:var(--muted)}
.live .dot{background:var(--accent);animation:pulse 1.6s ease-in-out infinite}
.live .badge{color:var(--fg)}
@keyframes pulse{50%{opacity:.35}}
@media (prefers-reduced-motion:reduce){.live .dot{animation:none}}
.count{display:inline-flex;align-items:center;gap:4px}
svg{width:1.25em;height:1.25em;fill:currentColor;flex:none}
.body{flex:1 1 auto;min-height:0;display:flex;gap:16px}
.main{flex:1 1 auto;min-width:0;min-height:0;overflow:auto;display:flex;flex-direction:column;gap:6px}
.art{display:none;position:relative;flex:none;aspect-ratio:1/1;max-width:45%;border-radius:10px;overflow:hidden;place-items:center;background:linear-gradient(135deg,var(--accent),#3b1d5e);color:#fff;font-weight:800;font-size:3em;box-shadow:0 8px 24px rgb(0 0 0/.25)}
.art img{position:absolute;inset:0;width:100%;height:100%;object-fit:cover}
.viz{display:none;flex:none;width:100%;height:24px;color:var(--accent);opacity:.9}
.card:not(.playing) .viz{visibility:hidden}
@container (min-width:340px){.art{display:grid}.viz{display:block}}
.name{display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden;font-size:1.45em;font-weight:700;line-height:1.2;color:var(--fg);text-decoration:none;word-break:break-word}
a.name:hover{text-decoration:underline}
.by{margin:0;color:var(--muted);font-size:.9em;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.np{margin-top:auto;padding:10px 12px;border-radius:8px;background:var(--panel);min-width:0}
.np[hidden]{display:none}
.np-label{margin:0;font-size:11px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted)}
.track{margin:2px 0 0;font-weight:600;font-size:1.05em;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.artist{margin:0;color:var(--muted);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.message{margin:0;min-height:1.4em;color:var(--muted);font-size:.95em}
.error .message,.not-allowed .message{color:var(--fg);font-weight:600}
.not-allowed .controls,.private .controls{display:none}
.private .message{color:var(--fg);font-weight:600}
.unlock{display:flex;gap:8px;margin-top:8px}.unlock[hidden]{display:none}
.unlock input{flex:1;min-width:0;padding:8px 10px;border-radius:8px;border:1px solid currentColor;background:transparent;color:inherit;font:inherit}
.unlock input{border-color:var(--line)}
.unlock-button{padding:8px 16px;border-radius:8px;border:0;font:inherit;font-weight:600;cursor:pointer;background:var(--accent);color:var(--on-accent)}
.checking .controls{visibility:hidden}
.controls{display:flex;align-items:center;gap:10px;flex:none}
button{font:inherit;color:inherit;cursor:pointer;border:0;background:none;display:inline-flex;align-items:center;justify-content:center;border-radius:999px}
button:disabled{cursor:not-allowed;opacity:.45}
button:focus-visible,input:focus-visible,a:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.play{width:48px;height:48px;background:var(--accent);color:var(--on-accent);flex:none}
.play svg{width:26px;height:26px}
.play-label{font-weight:600;padding:0 4px 0 0}
.blocked .play,.retry .play{width:auto;padding:0 18px 0 12px;gap:4px}
.play-label[hidden]{display:none}
.mute{width:36px;height:36px;color:var(--muted);flex:none}
.mute:hover{color:var(--fg)}
.volume{flex:1 1 auto;min-width:60px;max-width:220px;accent-color:var(--accent);height:24px;margin:0}
.sr{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
@container (min-width:560px){.card{font-size:16px;padding:24px;gap:16px}.play{width:56px;height:56px}.name{font-size:1.8em}.body{gap:24px}.viz{height:40px}.main{justify-content:center}.np{margin-top:12px}}
@container (min-width:760px){.card{font-size:18px;padding:32px}.name{font-size:2.1em}.play{width:64px;height:64px}.body{gap:32px}.viz{height:56px}.art{font-size:5em}}
@media (prefers-reduced-motion:reduce){.viz{display:none!important}}
`;

/** Constructable stylesheets where supported (CSP-proof, shared by every player); a `<style>` otherwise. */
let shared: CSSStyleSheet | null | undefined;

export function applyStyles(root: ShadowRoot): void {
  if (shared === undefined) {
    shared = null;
    try {
      if ('adoptedStyleSheets' in Document.prototype && 'replaceSync' in CSSStyleSheet.prototype) {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(STYLES);
        shared = sheet;
      }
    } catch {
      shared = null;
    }
  }
  if (shared) {
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, shared];
  } else {
    const style = document.createElement('style');
    style.textContent = STYLES;
    root.appendChild(style);
  }
}
