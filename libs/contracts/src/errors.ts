/**
 * Error tags returned as `{ error: TAG, message }`. The first four come from the spec's
 * toast table (§8); the rest are ours.
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
  ServiceUnavailable: 'ServiceUnavailable',
  InternalError: 'InternalError',
} as const;
export type ErrorTag = (typeof ErrorTag)[keyof typeof ErrorTag];

export interface ErrorBody {
  error: ErrorTag;
  message: string;
  /** Validation failures: one entry per offending field. */
  fields?: { path: string; message: string }[];
}
