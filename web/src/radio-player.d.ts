/** `<radio-player>` in JSX: the element from `@radiobroadcaster/player`, with its attributes. */
import type { DetailedHTMLProps, HTMLAttributes } from 'react';

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'radio-player': DetailedHTMLProps<HTMLAttributes<HTMLElement>, HTMLElement> & {
        station: string;
        theme?: 'light' | 'dark';
        autoplay?: 'true' | 'false';
        'api-base'?: string;
        /** A private station's invite token. */
        invite?: string;
      };
    }
  }
}
