export const SITE_NAME: string;
export const SITE_TAGLINE: string;
export const SUFFIX: string;
export const INDEXES: Record<
  'blog' | 'tutorials',
  { path: string; name: string; title: string; description: string }
>;
