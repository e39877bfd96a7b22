import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { dataSourceOptions } from './data-source.js';
import { EmbeddedPostgres } from './embedded-postgres.js';

/** Holds the embedded server (when there is no DATABASE_URL) so it stops after TypeORM closes. */
@Injectable()
export class EmbeddedDatabase implements OnApplicationShutdown {
  server: EmbeddedPostgres | null = null;
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async url(): Promise<{ url: string; embedded: boolean }> {
    if (this.config.databaseUrl) return { url: this.config.databaseUrl, embedded: false };
    this.server ??= await EmbeddedPostgres.start(this.config.pgliteDir);
    return { url: this.server.url, embedded: true };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.server?.stop();
    this.server = null;
  }
}

@Global()
@Module({ providers: [EmbeddedDatabase], exports: [EmbeddedDatabase] })
export class EmbeddedDatabaseModule {}

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      imports: [EmbeddedDatabaseModule],
      inject: [EmbeddedDatabase],
      useFactory: async (db: EmbeddedDatabase) => {
        const { url, embedded } = await db.url();
        return dataSourceOptions(url, embedded);
      },
    }),
  ],
})
export class DatabaseModule {}
