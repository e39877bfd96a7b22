import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { createApp } from './bootstrap.js';
import { loadConfig, settleListeningPort, type AppConfig } from './config/config.js';
import { StartupError } from './common/startup-error.js';

try {
  const config = loadConfig();
  const app = await createApp(config);
  await app.listen(config.port, config.host);
  const { port } = app.getHttpServer().address() as AddressInfo;
  settleListeningPort(config, port);
  stopOnSignals(app, config);
  // Tests and scripts read the actual port from this line (PORT=0 picks a free one).
  console.log(
    `Radio Broadcaster listening on http://127.0.0.1:${port} (public URL ${config.publicUrl})`,
  );
} catch (err) {
  // Configuration and unreachable servers are the operator's to fix: one line, no stack.
  if (!(err instanceof StartupError)) throw err;
  console.error(`Radio Broadcaster cannot start: ${err.message}`);
  process.exit(1);
}

/**
 * SIGTERM/SIGINT: the app's shutdown hooks close every source, listener and relay and end the
 * stations this process carries, then the process exits 0. Within `SHUTDOWN_GRACE_SECONDS` at
 * most: connections still open at half of it are cut (whatever holds them), and at the end the
 * process exits 1 whatever is left, before an orchestrator's SIGKILL.
 */
function stopOnSignals(app: INestApplication, config: AppConfig): void {
  // Every connection of the HTTP server, including the ones Icecast sources took over.
  const sockets = new Set<Socket>();
  (app.getHttpServer() as Server).on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const graceMs = config.shutdownGraceMs;
    console.log(`Radio Broadcaster stopping (${signal}; at most ${graceMs / 1000} s)`);
    setTimeout(() => {
      for (const s of sockets) s.destroy();
    }, graceMs / 2).unref();
    setTimeout(() => {
      console.error(`Radio Broadcaster did not stop within ${graceMs / 1000} s: exiting`);
      process.exit(1);
    }, graceMs).unref();
    app.close().then(
      () => process.exit(0),
      (err: Error) => {
        console.error(`Radio Broadcaster stopped with an error: ${err.stack ?? err.message}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
