import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { AuthContext } from './auth-context.js';

/** The caller's `AuthContext` (set by `SessionGuard`; `undefined` under `OptionalSessionGuard` when signed out). */
export const CurrentUser = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): AuthContext | undefined =>
    ctx.switchToHttp().getRequest<{ user?: AuthContext }>().user ?? undefined,
);
