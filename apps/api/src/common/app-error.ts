import { ErrorTag } from '@radiobroadcaster/contracts';

/** Every failure a user can cause, with the HTTP status it maps to in one place. */
export class AppError extends Error {
  constructor(
    readonly tag: ErrorTag,
    message: string,
    readonly fields?: { path: string; message: string }[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  static stationNotFound(): AppError {
    return new AppError(ErrorTag.StationNotFound, 'Station not found');
  }
  static unauthorized(message = 'Authentication required'): AppError {
    return new AppError(ErrorTag.Unauthorized, message);
  }
  static forbidden(message = 'You do not own this resource'): AppError {
    return new AppError(ErrorTag.Forbidden, message);
  }
  static validation(message: string, fields?: { path: string; message: string }[]): AppError {
    return new AppError(ErrorTag.ValidationError, message, fields);
  }
  static conflict(message: string): AppError {
    return new AppError(ErrorTag.Conflict, message);
  }
  static notFound(message: string): AppError {
    return new AppError(ErrorTag.NotFound, message);
  }
}

/** Exhaustive: a new tag without a status fails to compile. */
export function statusOf(tag: ErrorTag): number {
  switch (tag) {
    case ErrorTag.ValidationError:
      return 400;
    case ErrorTag.Unauthorized:
      return 401;
    case ErrorTag.Forbidden:
    case ErrorTag.DomainNotAllowed:
    case ErrorTag.StreamNotPublic:
    case ErrorTag.ListenLinkInvalid:
    case ErrorTag.PrivateStation:
    case ErrorTag.InviteInvalid:
    case ErrorTag.WrongPassword:
    case ErrorTag.GrantRevoked:
      return 403;
    case ErrorTag.StationNotFound:
    case ErrorTag.NotFound:
    case ErrorTag.UserNotFound:
      return 404;
    case ErrorTag.MethodNotAllowed:
      return 405;
    case ErrorTag.Conflict:
    case ErrorTag.ShowOverlap:
    case ErrorTag.StationNotActive:
      return 409;
    case ErrorTag.PayloadTooLarge:
      return 413;
    case ErrorTag.UnsupportedMediaType:
      return 415;
    case ErrorTag.RateLimited:
      return 429;
    case ErrorTag.InternalError:
    case ErrorTag.NetworkError:
      return 500;
    case ErrorTag.ServiceUnavailable:
      return 503;
  }
}
