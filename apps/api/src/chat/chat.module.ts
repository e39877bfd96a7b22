import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module.js';
import { AuthModule } from '../auth/auth.module.js';
import { DomainsModule } from '../domains/domains.module.js';
import { RecordingsModule } from '../recordings/recordings.module.js';
import { StationsModule } from '../stations/stations.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { ChatController } from './chat.controller.js';
import { ChatGateway } from './chat.gateway.js';
import { ChatRepository } from './chat.repository.js';
import { ChatService } from './chat.service.js';
import { PlayerChatController } from './player-chat.controller.js';
import { PresenceRegistry } from './presence.registry.js';

/** Live together (issue 27): presence lists, chat with moderation, reactions. */
@Module({
  imports: [
    AccessModule,
    AuthModule,
    StationsModule,
    WebhooksModule,
    RecordingsModule,
    DomainsModule,
  ],
  controllers: [ChatController, PlayerChatController],
  providers: [ChatRepository, ChatService, PresenceRegistry, ChatGateway],
  exports: [ChatService],
})
export class ChatModule {}
