import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { UsersModule } from '../users/users.module.js';
import { AuthController } from './auth.controller.js';
import { AuthMailer } from './auth.mailer.js';
import { AuthService } from './auth.service.js';
import { CsrfGuard } from './csrf.guard.js';
import { EmailVerificationTokenEntity } from './email-verification-token.entity.js';
import { SessionEntity } from './session.entity.js';
import { SessionJwtStrategy } from './session-jwt.strategy.js';
import { OptionalSessionGuard, SessionGuard } from './session.guard.js';
import { SessionsRepository } from './sessions.repository.js';

/**
 * Sessions, sign-in and the guards every other module uses. Global, so any controller can
 * `@UseGuards(SessionGuard)`; registers the CSRF check for the whole API as an APP_GUARD.
 */
@Global()
@Module({
  imports: [
    UsersModule,
    PassportModule.register({ session: false }),
    TypeOrmModule.forFeature([SessionEntity, EmailVerificationTokenEntity]),
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        secret: config.authSecret,
        signOptions: { algorithm: 'HS256' },
        verifyOptions: { algorithms: ['HS256'] },
      }),
    }),
  ],
  controllers: [AuthController],
  providers: [
    SessionsRepository,
    SessionJwtStrategy,
    SessionGuard,
    OptionalSessionGuard,
    AuthService,
    AuthMailer,
    { provide: APP_GUARD, useClass: CsrfGuard },
  ],
  exports: [
    AuthMailer,
    SessionJwtStrategy,
    SessionGuard,
    OptionalSessionGuard,
    SessionsRepository,
    UsersModule,
    AuthMailer,
  ],
})
export class AuthModule {}
