import { Controller, Get, Header, Inject, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  AddListenerRequest,
  CreateInviteRequest,
  type Invite,
  type ListedListener,
  StationAccess,
  type StationFeeds,
  StationId,
  StationIdRequest,
  StationPasswordRequest,
} from '@radiobroadcaster/contracts';
import { z } from 'zod';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { OptionalSessionGuard } from '../auth/session.guard.js';
import { type Parsed, ZodPipe } from '../common/zod.pipe.js';
import { OwnerRoute, ZodBody } from '../stations/owner-routes.js';
import { AccessService } from './access.service.js';

const ItemId = z.string().uuid({ message: 'This is not a valid id.' });
const GrantQuery = z.object({ grant: z.string().max(2048).optional() });

/** A private station's owner: invite links, the password, the listener list, the access panel. */
@ApiTags('access')
@Controller('api/stations')
export class AccessController {
  constructor(@Inject(AccessService) private readonly access: AccessService) {}

  @OwnerRoute(
    'POST',
    'invites',
    'Create an invite link: its url opens the station page and admits its holder',
    201,
  )
  createInvite(
    @CurrentUser() user: AuthContext,
    @ZodBody(CreateInviteRequest) body: Parsed<typeof CreateInviteRequest>,
  ): Promise<Invite> {
    return this.access.createInvite(user.userId, body);
  }

  @OwnerRoute('GET', ':id/invites', "A station's invite links, newest first, with their uses")
  listInvites(
    @CurrentUser() user: AuthContext,
    @Param('id', new ZodPipe(StationId)) id: string,
  ): Promise<Invite[]> {
    return this.access.listInvites(user.userId, id);
  }

  @OwnerRoute(
    'POST',
    'invites/revoke-all',
    'Revoke every invite link: their listeners are ended',
    200,
  )
  revokeAll(
    @CurrentUser() user: AuthContext,
    @ZodBody(StationIdRequest) body: Parsed<typeof StationIdRequest>,
  ) {
    return this.access.revokeAllInvites(user.userId, body.stationId);
  }

  @OwnerRoute(
    'DELETE',
    'invites/:inviteId',
    'Revoke an invite link: its listeners are ended within seconds',
    204,
  )
  async revokeInvite(
    @CurrentUser() user: AuthContext,
    @Param('inviteId', new ZodPipe(ItemId)) id: string,
  ): Promise<void> {
    await this.access.revokeInvite(user.userId, id);
  }

  @OwnerRoute('POST', 'password', 'Set, change or (null) remove the station password', 200)
  setPassword(
    @CurrentUser() user: AuthContext,
    @ZodBody(StationPasswordRequest) body: Parsed<typeof StationPasswordRequest>,
  ) {
    return this.access.setPassword(user.userId, body);
  }

  @OwnerRoute(
    'POST',
    'listeners',
    'Add an account (by e-mail) to the listener list and mail it',
    201,
  )
  addListener(
    @CurrentUser() user: AuthContext,
    @ZodBody(AddListenerRequest) body: Parsed<typeof AddListenerRequest>,
  ): Promise<ListedListener> {
    return this.access.addListener(user.userId, body);
  }

  @OwnerRoute('DELETE', 'listeners/:listenerId', 'Remove an account from the listener list', 204)
  async removeListener(
    @CurrentUser() user: AuthContext,
    @Param('listenerId', new ZodPipe(ItemId)) id: string,
  ): Promise<void> {
    await this.access.removeListener(user.userId, id);
  }

  @OwnerRoute(
    'GET',
    ':id/access',
    'Visibility, password, listener list, admissions and who listens now',
  )
  overview(
    @CurrentUser() user: AuthContext,
    @Param('id', new ZodPipe(StationId)) id: string,
  ): Promise<StationAccess> {
    return this.access.overview(user.userId, id);
  }

  @Get(':id/feeds')
  @Header('Cache-Control', 'private, no-store')
  @ApiOperation({
    summary:
      "The caller's podcast and calendar addresses: a private station's are the caller's own secret ones (`?key=`), for its owner or a listener with a grant (`?grant=`); revoking that access makes them answer 403",
  })
  @UseGuards(OptionalSessionGuard)
  feeds(
    @Param('id', new ZodPipe(StationId)) id: string,
    @Query(new ZodPipe(GrantQuery)) query: { grant?: string },
    @CurrentUser() user: AuthContext | undefined,
  ): Promise<StationFeeds> {
    return this.access.feeds(id, user?.userId, query.grant);
  }
}
