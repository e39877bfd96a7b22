/**
 * Error tags returned as `{ error: TAG, message }`. The first four have toasts of their own in
 * the web app and the player; the rest are shown with their message.
 */
export const ErrorTag = {
  StationNotFound: 'StationNotFoundError',
  StationNotActive: 'STATION_NOT_ACTIVE',
  NetworkError: 'NETWORK_ERROR',
  Unauthorized: 'Unauthorized',
  Forbidden: 'Forbidden',
  ValidationError: 'ValidationError',
  Conflict: 'Conflict',
  NotFound: 'NotFound',
  MethodNotAllowed: 'MethodNotAllowed',
  UserNotFound: 'UserNotFoundError',
  RateLimited: 'TooManyRequests',
  PayloadTooLarge: 'PayloadTooLarge',
  UnsupportedMediaType: 'UnsupportedMediaType',
  DomainNotAllowed: 'DOMAIN_NOT_ALLOWED',
  /** `/listen/…` without a signed link while the station's "Public stream URL" is off. */
  StreamNotPublic: 'STREAM_NOT_PUBLIC',
  /** A signed listening link that was altered, is for another station, or has expired. */
  ListenLinkInvalid: 'LISTEN_LINK_INVALID',
  ServiceUnavailable: 'ServiceUnavailable',
  /** A show would overlap another show of the same station (409). */
  ShowOverlap: 'SHOW_OVERLAP',
  /** A private station without an invite, the password or a listener-list account (403). */
  PrivateStation: 'PRIVATE_STATION',
  /** An invite link that was revoked, has expired or is used up (403). */
  InviteInvalid: 'INVITE_INVALID',
  /** A wrong station password (403). */
  WrongPassword: 'WRONG_STATION_PASSWORD',
  /** A listening grant that was revoked (403). */
  GrantRevoked: 'GRANT_REVOKED',
  InternalError: 'InternalError',
} as const;
export type ErrorTag = (typeof ErrorTag)[keyof typeof ErrorTag];

export interface ErrorBody {
  error: ErrorTag;
  message: string;
  /** Validation failures: one entry per offending field. */
  fields?: { path: string; message: string }[];
}
