import type {
  ChangeEmailRequest,
  ChangePasswordRequest,
  RequestPasswordResetRequest,
  ResetPasswordRequest,
  VerifyEmailResponse,
  AvatarResponse,
  AllowedDomain,
  AllowedDomainsResponse,
  CreateStationRequest,
  CreateStationResponse,
  DiscoverResponse,
  JoinStationResponse,
  NowPlayingRequest,
  SessionResponse,
  SignInRequest,
  SignInResponse,
  SignUpRequest,
  Station,
  StationToken,
  UpdateStationRequest,
  UpdateUserRequest,
  UserStationsResponse,
} from '@radiobroadcaster/contracts';
import { ApiError, NetworkError } from './api-error';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * A read with no answer after this long fails as a network error (its page shows the error and a
 * Retry) instead of loading forever. Writes are never cut off: they may have reached the server.
 */
export const API_READ_TIMEOUT_MS = 20_000;

/**
 * The one fetch wrapper: same origin, cookies included, JSON content type on every call, and any
 * non-OK response turned into an {@link ApiError}.
 */
export async function apiFetch<T>(
  path: string,
  method: Method = 'GET',
  body?: unknown,
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      // Public reads may be cached for a second by the browser; the app revalidates (a cheap 304)
      // so what it just changed shows at once.
      cache: 'no-cache',
      credentials: 'include',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: method === 'GET' ? AbortSignal.timeout(API_READ_TIMEOUT_MS) : undefined,
    });
  } catch (cause) {
    throw new NetworkError(cause);
  }
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    throw new ApiError(res.status, res.statusText, text);
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : null) as T;
}

/** Sends a picture as the raw request body (`PUT`, its own Content-Type). */
export async function apiUpload<T>(path: string, file: Blob): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: 'PUT',
      credentials: 'include',
      headers: {
        'Content-Type': file.type || 'application/octet-stream',
        Accept: 'application/json',
      },
      body: file,
    });
  } catch (cause) {
    throw new NetworkError(cause);
  }
  if (!res.ok) throw new ApiError(res.status, res.statusText, await res.text().catch(() => ''));
  return (await res.json()) as T;
}

const seg = encodeURIComponent;

/** The client operations the pages use, grouped by resource (users, stations). */
export const api = {
  stations: {
    get: (stationId: string) => apiFetch<Station>(`/api/stations/${seg(stationId)}`),
    discover: () => apiFetch<DiscoverResponse>('/api/stations/discover'),
    create: (data: CreateStationRequest) =>
      apiFetch<CreateStationResponse>('/api/stations', 'POST', data),
    update: (data: UpdateStationRequest) => apiFetch<Station>('/api/stations/update', 'POST', data),
    setNowPlaying: (data: NowPlayingRequest) =>
      apiFetch<Station>('/api/stations/now-playing', 'POST', data),
    clearNowPlaying: (stationId: string) =>
      apiFetch<Station>('/api/stations/now-playing/clear', 'POST', { stationId }),
    end: (stationId: string) => apiFetch<Station>('/api/stations/end', 'POST', { stationId }),
    remove: (stationId: string) => apiFetch<void>(`/api/stations/${seg(stationId)}`, 'DELETE'),
    setCover: (stationId: string, file: Blob) =>
      apiUpload<Station>(`/api/stations/${seg(stationId)}/cover`, file),
    removeCover: (stationId: string) =>
      apiFetch<Station>(`/api/stations/${seg(stationId)}/cover`, 'DELETE'),
    /** `access`: a private station's invite token, password or earlier grant. */
    joinAsReceiver: (
      stationId: string,
      access: { invite?: string; password?: string; grant?: string } = {},
    ) =>
      apiFetch<JoinStationResponse>('/api/joinStationAsReceiver', 'POST', {
        stationId,
        ...access,
      }),
    refreshToken: (stationId: string) =>
      apiFetch<StationToken>('/api/stations/token/refresh', 'POST', { stationId }),
  },
  users: {
    getStationsByUsername: (username: string) =>
      apiFetch<UserStationsResponse>(`/api/users/${seg(username)}/stations`),
    getStationByUsernameAndSlug: (username: string, stationSlug: string) =>
      apiFetch<Station>(`/api/users/${seg(username)}/stations/${seg(stationSlug)}`),
  },
  domains: {
    list: () => apiFetch<AllowedDomainsResponse>('/api/me/allowed-domains'),
    add: (domain: string) => apiFetch<AllowedDomain>('/api/me/allowed-domains', 'POST', { domain }),
    remove: (domain: string) => apiFetch<void>(`/api/me/allowed-domains/${seg(domain)}`, 'DELETE'),
  },
  me: {
    setAvatar: (file: Blob) => apiUpload<AvatarResponse>('/api/me/avatar', file),
    removeAvatar: () => apiFetch<AvatarResponse>('/api/me/avatar', 'DELETE'),
  },
  auth: {
    getSession: () => apiFetch<SessionResponse | null>('/api/auth/get-session'),
    signUp: (data: SignUpRequest) =>
      apiFetch<SignInResponse>('/api/auth/sign-up/email', 'POST', data),
    signIn: (data: SignInRequest) =>
      apiFetch<SignInResponse>('/api/auth/sign-in/email', 'POST', data),
    signOut: () => apiFetch<unknown>('/api/auth/sign-out', 'POST', {}),
    updateUser: (data: UpdateUserRequest) =>
      apiFetch<unknown>('/api/auth/update-user', 'POST', data),
    deleteUser: (password?: string) =>
      apiFetch<unknown>('/api/auth/delete-user', 'POST', password ? { password } : {}),
    sendVerificationEmail: () =>
      apiFetch<{ status: true }>('/api/auth/send-verification-email', 'POST', {}),
    verifyEmail: (token: string) =>
      apiFetch<VerifyEmailResponse>(`/api/auth/verify-email?token=${encodeURIComponent(token)}`),
    requestPasswordReset: (data: RequestPasswordResetRequest) =>
      apiFetch<{ status: true }>('/api/auth/request-password-reset', 'POST', data),
    resetPassword: (data: ResetPasswordRequest) =>
      apiFetch<{ status: true }>('/api/auth/reset-password', 'POST', data),
    changePassword: (data: ChangePasswordRequest) =>
      apiFetch<{ status: true }>('/api/auth/change-password', 'POST', data),
    changeEmail: (data: ChangeEmailRequest) =>
      apiFetch<{ status: true }>('/api/auth/change-email', 'POST', data),
  },
};
