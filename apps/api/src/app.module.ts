import { type DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from './auth/auth.module.js';
import { ContentModule } from './content/content.module.js';
import type { AppConfig } from './config/config.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { EventsModule } from './events/events.module.js';
import { HealthModule } from './health/health.module.js';
import { MediaModule } from './media/media.module.js';
import { WebModule } from './web/web.module.js';
import { DomainsModule } from './domains/domains.module.js';
import { RealtimeModule } from './realtime/realtime.module.js';
import { StationsModule } from './stations/stations.module.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        EventsModule,
        HealthModule,
        AuthModule,
        StationsModule,
        DomainsModule,
        RealtimeModule,
        MediaModule,
        // sitemap.xml, robots.txt, the blog feed: before the web app's catch-all.
        ContentModule,
        // Last: its catch-all GET serves the web app.
        WebModule,
      ],
    };
  }
}
