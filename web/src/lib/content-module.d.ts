/** Provided by the `rb-content` plugin in vite.config.ts. */
declare module 'virtual:rb-content' {
  const collections: import('../../../content/content').Collections;
  export default collections;
}

/** Provided by the `rb-content` plugin: what the home and /embed pages show, without the bodies. */
declare module 'virtual:rb-content-facts' {
  interface Item {
    slug: string;
    title: string;
    summary: string;
    path: string;
  }
  /** Gzipped size of the built player.js, e.g. '10 KB' (rounded up). */
  export const playerSize: string;
  export const tutorials: (Item & { platform: string })[];
  export const posts: Item[];
}
