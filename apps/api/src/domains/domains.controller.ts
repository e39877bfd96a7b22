import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  AddDomainRequest,
  type AllowedDomain,
  type AllowedDomainsResponse,
} from '@radiobroadcaster/contracts';
import type { Response } from 'express';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { SessionGuard } from '../auth/session.guard.js';
import { type Parsed, ZodPipe } from '../common/zod.pipe.js';
import { DomainsService } from './domains.service.js';

@ApiTags('allowed domains')
@Controller('api/me/allowed-domains')
@UseGuards(SessionGuard)
export class DomainsController {
  constructor(@Inject(DomainsService) private readonly domains: DomainsService) {}

  @Get()
  @ApiOperation({ summary: 'The sites on which your stations may be embedded (empty: anywhere)' })
  async list(@CurrentUser() user: AuthContext): Promise<AllowedDomainsResponse> {
    return { domains: await this.domains.list(user.userId) };
  }

  @Post()
  @ApiOperation({ summary: 'Allow a domain (normalised; *.example.com for every subdomain)' })
  async add(
    @CurrentUser() user: AuthContext,
    @Body(new ZodPipe(AddDomainRequest)) body: Parsed<typeof AddDomainRequest>,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AllowedDomain> {
    const { domain, created } = await this.domains.add(user.userId, body.domain);
    res.status(created ? 201 : 200);
    return domain;
  }

  @Delete(':domain')
  @HttpCode(204)
  async remove(@CurrentUser() user: AuthContext, @Param('domain') domain: string): Promise<void> {
    await this.domains.remove(user.userId, domain);
  }
}
