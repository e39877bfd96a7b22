import {
  Controller,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Put,
  Query,
  UseGuards,
} from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CHAT_LIMITS,
  ChatBanRequest,
  ChatMessageRef,
  ChatModeratorRequest,
  ChatPinRequest,
  ChatReportRequest,
  ChatSettingsRequest,
  ChatStationRequest,
  ChatUnbanRequest,
  PresenceVisibilityRequest,
  StationId,
} from '@radiobroadcaster/contracts';
import { z } from 'zod';
import type { AuthContext } from '../auth/auth-context.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { OptionalSessionGuard, SessionGuard } from '../auth/session.guard.js';
import { AccessService } from '../access/access.service.js';
import { RecordingsService } from '../recordings/recordings.service.js';
import { StationsService } from '../stations/stations.service.js';
import { AppError } from '../common/app-error.js';
import { type Parsed, ZodPipe } from '../common/zod.pipe.js';
import { OwnerRoute, ZodBody } from '../stations/owner-routes.js';
import { ChatGateway } from './chat.gateway.js';
import { ChatRepository, publicMessage } from './chat.repository.js';
import { ChatService } from './chat.service.js';

const Limit = z.coerce.number().int().min(1).max(CHAT_LIMITS.history).default(CHAT_LIMITS.history);
const stationQuery = (q: unknown) => {
  const r = StationId.safeParse(q);
  if (!r.success) throw AppError.validation('stationId must be a UUID');
  return r.data;
};

/** Chat and presence over REST: public reads, and moderation under `/api/stations/chat/…`. */
@ApiTags('chat')
@Controller()
export class ChatController {
  constructor(
    @Inject(ChatService) private readonly chat: ChatService,
    @Inject(ChatRepository) private readonly repo: ChatRepository,
    @Inject(ChatGateway) private readonly gateway: ChatGateway,
    @Inject(RecordingsService) private readonly recordings: RecordingsService,
    @Inject(AccessService) private readonly access: AccessService,
    @Inject(StationsService) private readonly stations: StationsService,
  ) {}

  /** A private station's chat and presence are for its owner and listeners with a grant (`?grant=`). */
  private async assertMayHear(stationId: string, user: AuthContext | undefined, grant: unknown) {
    await this.access.assertMayHear(await this.stations.entity(stationId), user?.userId, grant);
  }

  @Get('api/recordings/:recordingId/chat')
  @UseGuards(OptionalSessionGuard)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'The chat kept with a recording, each message with its offset from the start (ms)',
  })
  async replayChat(
    @CurrentUser() user: AuthContext | undefined,
    @Param('recordingId', new ZodPipe(z.string().uuid())) recordingId: string,
    @Query('grant') grant: unknown,
  ) {
    // Visible as the recording is (recordingAccess; a private station's with its grant): 404 otherwise.
    const r = await this.recordings.get(
      recordingId,
      user?.userId,
      typeof grant === 'string' ? grant : undefined,
    );
    const start = new Date(r.startedAt);
    // The audio's length decides what a replay covers (a recording may end after its last packet).
    const end = new Date(
      Math.max(
        r.endedAt ? new Date(r.endedAt).getTime() : Date.now(),
        start.getTime() + r.durationSeconds * 1000,
      ),
    );
    const messages = await this.repo.between(r.stationId, start, end);
    return {
      recordingId,
      messages: messages.map((m) => ({
        ...publicMessage(m),
        offsetMs: new Date(m.sentAt).getTime() - start.getTime(),
      })),
    };
  }

  @Get('api/stations/chat/settings')
  @UseGuards(SessionGuard)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Chat settings of a station (owner and moderators)' })
  settings(@CurrentUser() user: AuthContext, @Query('stationId') stationId: unknown) {
    return this.chat.ownerSettings(user.userId, stationQuery(stationId));
  }

  @OwnerRoute('POST', 'api/stations/chat/settings', 'Change chat settings', 200)
  updateSettings(
    @CurrentUser() user: AuthContext,
    @ZodBody(ChatSettingsRequest) body: Parsed<typeof ChatSettingsRequest>,
  ) {
    return this.chat.updateSettings(user.userId, body);
  }

  @OwnerRoute('POST', 'api/stations/chat/delete', 'Delete a chat message for everyone', 204)
  async remove(
    @CurrentUser() user: AuthContext,
    @ZodBody(ChatMessageRef) b: Parsed<typeof ChatMessageRef>,
  ) {
    await this.chat.deleteMessage(user.userId, b.stationId, b.messageId);
  }

  @OwnerRoute('POST', 'api/stations/chat/ban', 'Ban or time out a chatter', 200)
  ban(@CurrentUser() user: AuthContext, @ZodBody(ChatBanRequest) b: Parsed<typeof ChatBanRequest>) {
    return this.chat.ban(user.userId, b);
  }

  @OwnerRoute('POST', 'api/stations/chat/unban', 'Lift a ban or timeout', 204)
  async unban(
    @CurrentUser() user: AuthContext,
    @ZodBody(ChatUnbanRequest) b: z.infer<typeof ChatUnbanRequest>,
  ) {
    await this.chat.unban(user.userId, b.stationId, b.subject);
  }

  @Get('api/stations/chat/bans')
  @UseGuards(SessionGuard)
  @Header('Cache-Control', 'no-store')
  bans(@CurrentUser() user: AuthContext, @Query('stationId') stationId: unknown) {
    return this.chat.bans(user.userId, stationQuery(stationId));
  }

  @OwnerRoute('POST', 'api/stations/chat/clear', 'Clear the chat', 204)
  async clear(
    @CurrentUser() user: AuthContext,
    @ZodBody(ChatStationRequest) b: z.infer<typeof ChatStationRequest>,
  ) {
    await this.chat.clear(user.userId, b.stationId);
  }

  @OwnerRoute('POST', 'api/stations/chat/pin', 'Pin (or unpin with null) one message', 204)
  async pin(
    @CurrentUser() user: AuthContext,
    @ZodBody(ChatPinRequest) b: z.infer<typeof ChatPinRequest>,
  ) {
    await this.chat.pin(user.userId, b.stationId, b.messageId);
  }

  @OwnerRoute('POST', 'api/stations/chat/moderators', 'Name or remove a chat moderator', 200)
  moderators(
    @CurrentUser() user: AuthContext,
    @ZodBody(ChatModeratorRequest) b: z.infer<typeof ChatModeratorRequest>,
  ) {
    return this.chat.setModerator(user.userId, b.stationId, b.username, b.moderator);
  }

  @Get('api/stations/chat/log')
  @UseGuards(SessionGuard)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'What moderators did (owner)' })
  log(@CurrentUser() user: AuthContext, @Query('stationId') stationId: unknown) {
    return this.chat.log(user.userId, stationQuery(stationId));
  }

  @OwnerRoute('POST', 'api/stations/chat/report', 'Report a message to the owner', 204)
  async report(
    @CurrentUser() user: AuthContext,
    @ZodBody(ChatReportRequest) b: z.infer<typeof ChatReportRequest>,
  ) {
    await this.chat.report(user.username, b.stationId, b.messageId, b.reason);
  }

  @Get('api/stations/chat/reports')
  @UseGuards(SessionGuard)
  @Header('Cache-Control', 'no-store')
  reports(@CurrentUser() user: AuthContext, @Query('stationId') stationId: unknown) {
    return this.chat.reports(user.userId, stationQuery(stationId));
  }

  @Get('api/stations/chat/export')
  @UseGuards(SessionGuard)
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Every kept message of the station as JSON (owner)' })
  export(@CurrentUser() user: AuthContext, @Query('stationId') stationId: unknown) {
    return this.chat.export(user.userId, stationQuery(stationId));
  }

  @Get('api/account/presence')
  @UseGuards(SessionGuard)
  @Header('Cache-Control', 'no-store')
  async visibility(@CurrentUser() user: AuthContext) {
    return { visible: await this.repo.presenceVisible(user.userId) };
  }

  @Put('api/account/presence')
  @UseGuards(SessionGuard)
  @HttpCode(200)
  async setVisibility(
    @CurrentUser() user: AuthContext,
    @ZodBody(PresenceVisibilityRequest) b: z.infer<typeof PresenceVisibilityRequest>,
  ) {
    await this.repo.setPresenceVisible(user.userId, b.visible);
    await this.gateway.visibilityChanged(user.userId, b.visible);
    return { visible: b.visible };
  }

  @Get('api/stations/:stationId/chat')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Recent chat messages (oldest first), the pinned one, the room settings',
  })
  @UseGuards(OptionalSessionGuard)
  async history(
    @Param('stationId', new ZodPipe(StationId)) stationId: string,
    @Query('limit') limit: unknown,
    @Query('grant') grant: unknown,
    @CurrentUser() user: AuthContext | undefined,
  ) {
    await this.assertMayHear(stationId, user, grant);
    const n = Limit.safeParse(limit);
    if (!n.success) throw AppError.validation(`limit must be 1..${CHAT_LIMITS.history}`);
    return this.chat.history(stationId, n.data);
  }

  @Get('api/stations/:stationId/presence')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Who is listening: the count, the named listeners, and the guests' })
  @UseGuards(OptionalSessionGuard)
  async presence(
    @Param('stationId', new ZodPipe(StationId)) stationId: string,
    @Query('grant') grant: unknown,
    @CurrentUser() user: AuthContext | undefined,
  ) {
    await this.assertMayHear(stationId, user, grant);
    return this.chat.presence(stationId);
  }
}
