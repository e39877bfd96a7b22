/** Cover art and avatars: what may be uploaded, and what the server keeps. */
export const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif'];

export const IMAGE_RULES = {
  /** Larger uploads are refused before they are read (413). */
  maxBytes: 8 * 1024 * 1024,
  /** Neither side may be longer (decompression bombs, absurd scans). */
  maxSide: 10_000,
  cover: { minSide: 300, size: 800 },
  avatar: { minSide: 96, size: 256 },
} as const;

export type ImageKind = 'cover' | 'avatar';

/** Where a stored image is served: immutable, so a new upload gets a new address. */
export const imagePath = (imageId: string): string => `/images/${imageId}.webp`;

/** The 1200×630 social preview of a station; `v` changes when what it shows changes. */
export const stationOgImagePath = (stationId: string, version: string): string =>
  `/og/stations/${stationId}.png?v=${version}`;

/** `PUT /api/me/avatar` answers with the new picture (null after `DELETE`). */
export interface AvatarResponse {
  avatarUrl: string | null;
}
