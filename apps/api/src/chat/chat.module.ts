import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { StationsModule } from '../stations/stations.module.js';
import { ChatController } from './chat.controller.js';
import { ChatGateway } from './chat.gateway.js';
import { ChatRepository } from './chat.repository.js';
import { ChatService } from './chat.service.js';
import { PresenceRegistry } from './presence.registry.js';

/** Live together (issue 27): presence lists, chat with moderation, reactions. */
@Module({
  imports: [AuthModule, StationsModule],
  controllers: [ChatController],
  providers: [ChatRepository, ChatService, PresenceRegistry, ChatGateway],
  exports: [ChatService],
})
export class ChatModule {}
