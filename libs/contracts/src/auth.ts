import { z } from 'zod';
import { LIMITS } from './constants.js';
import { singleLineText } from './text.js';

/** Calls under `/api/auth`, shaped like better-auth's endpoints of the same names. */
export const USERNAME_PATTERN = /^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$/;

export const Username = z
  .string()
  .trim()
  .toLowerCase()
  .min(LIMITS.usernameMin)
  .max(LIMITS.usernameMax)
  .regex(USERNAME_PATTERN, 'Use lowercase letters, digits, - and _ (not at the start or end).');

export const SignUpRequest = z.strictObject({
  email: z.string().trim().toLowerCase().email(),
  password: z.string().min(LIMITS.passwordMin).max(LIMITS.passwordMax),
  name: singleLineText(LIMITS.nameMax),
  username: Username,
  callbackURL: z.string().optional(),
  rememberMe: z.boolean().optional(),
});
export type SignUpRequest = z.infer<typeof SignUpRequest>;

export const SignInRequest = z.strictObject({
  email: z.string().trim().toLowerCase().email(),
  password: z.string().min(1).max(LIMITS.passwordMax),
  callbackURL: z.string().optional(),
  rememberMe: z.boolean().optional(),
});
export type SignInRequest = z.infer<typeof SignInRequest>;

export const UpdateUserRequest = z.strictObject({
  name: singleLineText(LIMITS.nameMax).optional(),
  username: Username.optional(),
  image: z.string().url().max(2048).nullable().optional(),
});
export type UpdateUserRequest = z.infer<typeof UpdateUserRequest>;

export const DeleteUserRequest = z.strictObject({
  password: z.string().max(LIMITS.passwordMax).optional(),
  callbackURL: z.string().optional(),
});
export type DeleteUserRequest = z.infer<typeof DeleteUserRequest>;

const Email = z.string().trim().toLowerCase().email();
const NewPassword = z.string().min(LIMITS.passwordMin).max(LIMITS.passwordMax);
/** An emailed account link's token (base64url of 32 bytes). */
const AccountToken = z.string().min(1).max(256);

/** `POST /api/auth/send-verification-email`: mail the signed-in user a new verification link. */
export const SendVerificationEmailRequest = z.strictObject({
  callbackURL: z.string().optional(),
});
export type SendVerificationEmailRequest = z.infer<typeof SendVerificationEmailRequest>;

/** `POST /api/auth/request-password-reset`: always answers the same, account or not. */
export const RequestPasswordResetRequest = z.strictObject({
  email: Email,
  redirectTo: z.string().optional(),
});
export type RequestPasswordResetRequest = z.infer<typeof RequestPasswordResetRequest>;

/** `POST /api/auth/reset-password`: the mailed token and the new password; every session ends. */
export const ResetPasswordRequest = z.strictObject({
  token: AccountToken,
  newPassword: NewPassword,
});
export type ResetPasswordRequest = z.infer<typeof ResetPasswordRequest>;

/** `POST /api/auth/change-password` (signed in): the other sessions end unless told otherwise. */
export const ChangePasswordRequest = z.strictObject({
  currentPassword: z.string().min(1).max(LIMITS.passwordMax),
  newPassword: NewPassword,
  revokeOtherSessions: z.boolean().optional(),
});
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequest>;

/** `POST /api/auth/change-email` (signed in): the new address takes over once its link is opened. */
export const ChangeEmailRequest = z.strictObject({
  newEmail: Email,
  callbackURL: z.string().optional(),
});
export type ChangeEmailRequest = z.infer<typeof ChangeEmailRequest>;

/** What `GET /api/auth/verify-email` did with a link. */
export interface VerifyEmailResponse {
  status: true;
  /** `change-email`: the account's address is now `email`. */
  kind: 'verify-email' | 'change-email';
  email: string;
}

export interface AuthUser {
  id: string;
  email: string;
  emailVerified: boolean;
  name: string;
  username: string;
  image: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AuthSession {
  id: string;
  userId: string;
  expiresAt: string;
  createdAt: string;
  ipAddress: string | null;
  userAgent: string | null;
}

/** `GET /api/auth/get-session` → this, or `null` when signed out. */
export interface SessionResponse {
  session: AuthSession;
  user: AuthUser;
}

/** Sign-up and sign-in answer with the user and a bearer token for non-browser clients. */
export interface SignInResponse {
  redirect: boolean;
  token: string;
  user: AuthUser;
}
