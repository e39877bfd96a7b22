/**
 * Defines `<radio-player>` (once, and only where custom elements exist). This is the entry of the
 * built `player.js` / `player.mjs`; it also re-exports the client so a page can use both.
 */
import { RadioPlayerElement } from './element.js';

export const TAG_NAME = 'radio-player';

export function defineRadioPlayer(tagName: string = TAG_NAME): void {
  if (typeof customElements === 'undefined' || customElements.get(tagName)) return;
  customElements.define(
    tagName,
    tagName === TAG_NAME ? RadioPlayerElement : class extends RadioPlayerElement {},
  );
}

defineRadioPlayer();

export { RadioPlayerElement };
export * from './index.js';
