import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Post,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ChangeEmailRequest,
  ChangePasswordRequest,
  RequestPasswordResetRequest,
  ResetPasswordRequest,
  SendVerificationEmailRequest,
  type VerifyEmailResponse,
  DeleteUserRequest,
  SignInRequest,
  SignUpRequest,
  UpdateUserRequest,
  type SessionResponse,
  type SignInResponse,
} from '@radiobroadcaster/contracts';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { parseOrThrow, type Parsed, ZodPipe } from '../common/zod.pipe.js';
import { RateLimit } from '../rate-limit/rate-limit.guard.js';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { toAuthUser } from '../users/user.view.js';
import type { AuthContext } from './auth-context.js';
import { SESSION_COOKIE } from './auth.constants.js';
import { AuthService, type ClientInfo, type IssuedSession } from './auth.service.js';
import { CheckOrigin } from './csrf.guard.js';
import { CurrentUser } from './current-user.decorator.js';
import { OptionalSessionGuard, SessionGuard } from './session.guard.js';

const VerifyEmailQuery = z.object({ token: z.string().min(1).max(256) });

function clientOf(req: Request): ClientInfo {
  return { ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null };
}

/** Calls under `/api/auth`, shaped like better-auth's endpoints of the same names. */
@ApiTags('auth')
@Controller('api/auth')
export class AuthController {
  private readonly secureCookie: boolean;

  constructor(
    @Inject(AuthService) private readonly auth: AuthService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.secureCookie = new URL(config.publicUrl).protocol === 'https:';
  }

  @Post('sign-up/email')
  @HttpCode(200)
  @CheckOrigin()
  // Per IP and per address, whatever the answer: an existing address answers 409 (a new account
  // is signed in at once, so the two cannot look alike), and these bound how far that is probed.
  @RateLimit('auth', 'signUp', 'signUpAddress')
  @ApiOperation({
    summary: 'Create an account and sign in (sets the session cookie; the token is for apps)',
  })
  async signUp(
    @Body(new ZodPipe(SignUpRequest)) body: Parsed<typeof SignUpRequest>,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SignInResponse> {
    const { user, ...session } = await this.auth.signUp(body, clientOf(req));
    this.setCookie(res, session);
    return { redirect: false, token: session.token, user: toAuthUser(user) };
  }

  @Post('sign-in/email')
  @HttpCode(200)
  @CheckOrigin()
  @RateLimit('auth')
  @ApiOperation({
    summary: 'Sign in with email and password (sets the session cookie; the token is for apps)',
  })
  async signIn(
    @Body(new ZodPipe(SignInRequest)) body: Parsed<typeof SignInRequest>,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SignInResponse> {
    const { user, ...session } = await this.auth.signIn(body, clientOf(req));
    this.setCookie(res, session);
    return { redirect: false, token: session.token, user: toAuthUser(user) };
  }

  @Get('get-session')
  @UseGuards(OptionalSessionGuard)
  @ApiOperation({ summary: 'The current session and user, or null when signed out' })
  async getSession(
    @CurrentUser() ctx: AuthContext | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const session: SessionResponse | null = ctx ? await this.auth.getSession(ctx) : null;
    // A cookie that no longer names a live session is dropped.
    if (!session && (req.cookies as Record<string, unknown> | undefined)?.[SESSION_COOKIE])
      this.clearCookie(res);
    res.status(200).json(session);
  }

  @Post('sign-out')
  @HttpCode(200)
  @UseGuards(SessionGuard)
  @ApiOperation({ summary: 'End this session' })
  async signOut(
    @CurrentUser() ctx: AuthContext,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ success: true }> {
    await this.auth.signOut(ctx);
    this.clearCookie(res);
    return { success: true };
  }

  @Post('update-user')
  @HttpCode(200)
  @UseGuards(SessionGuard)
  @ApiOperation({ summary: 'Change name, username or image' })
  async updateUser(
    @CurrentUser() ctx: AuthContext,
    @Body(new ZodPipe(UpdateUserRequest)) body: Parsed<typeof UpdateUserRequest>,
  ): Promise<{ status: true }> {
    await this.auth.updateUser(ctx, body);
    return { status: true };
  }

  @Post('delete-user')
  @HttpCode(200)
  @UseGuards(SessionGuard)
  @ApiOperation({ summary: 'Delete the account with its stations, allowed domains and sessions' })
  async deleteUser(
    @CurrentUser() ctx: AuthContext,
    @Body(new ZodPipe(DeleteUserRequest)) body: Parsed<typeof DeleteUserRequest>,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ success: true }> {
    await this.auth.deleteUser(ctx, body);
    this.clearCookie(res);
    return { success: true };
  }

  @Get('verify-email')
  @ApiOperation({
    summary:
      'Confirm an email address (or a new one) with the mailed token; a browser is sent to the page that does it',
  })
  async verifyEmail(
    @Query() query: unknown,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<VerifyEmailResponse | void> {
    const { token } = parseOrThrow(VerifyEmailQuery, query);
    // A link opened in a browser shows the site's page (which calls back here as JSON).
    if (req.accepts(['json', 'html']) === 'html') {
      res.redirect(303, `/verify-email?token=${encodeURIComponent(token)}`);
      return;
    }
    return this.auth.verifyEmail(token);
  }

  @Post('send-verification-email')
  @HttpCode(200)
  @RateLimit('mail')
  @UseGuards(SessionGuard)
  @ApiOperation({ summary: 'Mail the signed-in account a new verification link' })
  async sendVerificationEmail(
    @CurrentUser() ctx: AuthContext,
    @Body(new ZodPipe(SendVerificationEmailRequest))
    _body: Parsed<typeof SendVerificationEmailRequest>,
  ): Promise<{ status: true }> {
    await this.auth.resendVerification(ctx);
    return { status: true };
  }

  @Post('request-password-reset')
  @HttpCode(200)
  @CheckOrigin()
  @RateLimit('mail')
  @ApiOperation({
    summary:
      'Mail a password reset link to the address when it has an account (same answer either way)',
  })
  async requestPasswordReset(
    @Body(new ZodPipe(RequestPasswordResetRequest))
    body: Parsed<typeof RequestPasswordResetRequest>,
  ): Promise<{ status: true }> {
    await this.auth.requestPasswordReset(body.email);
    return { status: true };
  }

  @Post('reset-password')
  @HttpCode(200)
  @CheckOrigin()
  @RateLimit('auth')
  @ApiOperation({ summary: 'Set a new password with the mailed token; every session ends' })
  async resetPassword(
    @Body(new ZodPipe(ResetPasswordRequest)) body: Parsed<typeof ResetPasswordRequest>,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ status: true }> {
    await this.auth.resetPassword(body.token, body.newPassword);
    this.clearCookie(res);
    return { status: true };
  }

  @Post('change-password')
  @HttpCode(200)
  @RateLimit('auth')
  @UseGuards(SessionGuard)
  @ApiOperation({ summary: 'Change the password (the other sessions end unless told otherwise)' })
  async changePassword(
    @CurrentUser() ctx: AuthContext,
    @Body(new ZodPipe(ChangePasswordRequest)) body: Parsed<typeof ChangePasswordRequest>,
  ): Promise<{ status: true }> {
    await this.auth.changePassword(ctx, body);
    return { status: true };
  }

  @Post('change-email')
  @HttpCode(200)
  @RateLimit('mail')
  @UseGuards(SessionGuard)
  @ApiOperation({ summary: 'Mail a confirmation link to a new address; it takes over once opened' })
  async changeEmail(
    @CurrentUser() ctx: AuthContext,
    @Body(new ZodPipe(ChangeEmailRequest)) body: Parsed<typeof ChangeEmailRequest>,
  ): Promise<{ status: true }> {
    await this.auth.changeEmail(ctx, body.newEmail);
    return { status: true };
  }

  @Post('revoke-sessions')
  @HttpCode(200)
  @UseGuards(SessionGuard)
  @ApiOperation({ summary: 'Sign out everywhere, this session included' })
  async revokeSessions(
    @CurrentUser() ctx: AuthContext,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ status: true }> {
    await this.auth.revokeSessions(ctx);
    this.clearCookie(res);
    return { status: true };
  }

  @Post('revoke-other-sessions')
  @HttpCode(200)
  @UseGuards(SessionGuard)
  @ApiOperation({ summary: 'Sign out every other session' })
  async revokeOtherSessions(@CurrentUser() ctx: AuthContext): Promise<{ status: true }> {
    await this.auth.revokeOtherSessions(ctx);
    return { status: true };
  }

  private setCookie(res: Response, session: IssuedSession): void {
    res.cookie(SESSION_COOKIE, session.token, {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secureCookie,
      path: '/',
      expires: session.expiresAt,
    });
  }

  private clearCookie(res: Response): void {
    res.clearCookie(SESSION_COOKIE, {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secureCookie,
      path: '/',
    });
  }
}
