/**
 * React 19 JSX typings for `<radio-player>`. Include this file in your compiler config (or add
 * `/// <reference types="@radiobroadcaster/player/react" />`) and `<radio-player station="user/slug" />`
 * type-checks in .tsx files.
 */
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { RadioPlayerElement } from '../src/element.js';

export interface RadioPlayerAttributes extends DetailedHTMLProps<
  HTMLAttributes<RadioPlayerElement>,
  RadioPlayerElement
> {
  /** Required: `username/station-slug`. */
  station: string;
  /** `light` or `dark` (default); anything else is dark. */
  theme?: 'light' | 'dark' | (string & {});
  /** Start playing on load (default false); browsers may block it, the player then says 'Click to play'. */
  autoplay?: boolean | 'true' | 'false';
  /** Origin of the Radio Broadcaster API; defaults to where the script was loaded from. */
  'api-base'?: string;
  /** A private station's invite token (its invite link's `?invite=`). */
  invite?: string;
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'radio-player': RadioPlayerAttributes;
    }
  }
}
