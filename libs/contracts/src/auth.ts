import { z } from 'zod';
import { LIMITS } from './constants.js';

/** Calls under `/api/auth`, shaped like better-auth's endpoints of the same names. */
export const USERNAME_PATTERN = /^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$/;

export const Username = z
  .string()
  .trim()
  .toLowerCase()
  .min(LIMITS.usernameMin)
  .max(LIMITS.usernameMax)
  .regex(USERNAME_PATTERN, 'lowercase letters, digits, "-" and "_" only');

export const SignUpRequest = z.strictObject({
  email: z.string().trim().toLowerCase().email(),
  password: z.string().min(LIMITS.passwordMin).max(LIMITS.passwordMax),
  name: z.string().trim().min(1).max(LIMITS.nameMax),
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
  name: z.string().trim().min(1).max(LIMITS.nameMax).optional(),
  username: Username.optional(),
  image: z.string().url().max(2048).nullable().optional(),
});
export type UpdateUserRequest = z.infer<typeof UpdateUserRequest>;

export const DeleteUserRequest = z.strictObject({
  password: z.string().max(LIMITS.passwordMax).optional(),
  callbackURL: z.string().optional(),
});
export type DeleteUserRequest = z.infer<typeof DeleteUserRequest>;

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
