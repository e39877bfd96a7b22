import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * PGlite (PostgreSQL in WASM) served on a loopback port, so the app talks to it with the same
 * `pg` driver and migrations as to a real server. One connection: pglite-socket's multiplexer
 * has open interleave bugs upstream, so the pool in embedded mode is one connection too.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    readonly url: string,
  ) {}

  static async start(dataDir: string): Promise<EmbeddedPostgres> {
    mkdirSync(dataDir, { recursive: true });
    const db = await PGlite.create(dataDir);
    const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1' });
    await server.start();
    return new EmbeddedPostgres(
      db,
      server,
      `postgres://postgres@${server.getServerConn()}/postgres`,
    );
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
  }
}
