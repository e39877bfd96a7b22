import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { createApp } from './bootstrap.js';
import { loadConfig, settleListeningPort, type AppConfig } from './config/config.js';
import { StartupError } from './common/startup-error.js';
import { EXIT_FLUSH_MS, flushLogsAtExitBy } from './common/logger.js';
import { killAt } from './common/exit-watchdog.js';

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
 * most: connections still open at half of it are cut (whatever holds them), near its end the
 * process exits 1 whatever is left, log lines stdout does not take by then are dropped, and should
 * even that not run (the event loop blocked) a watchdog thread kills the process at the grace.
 * A second SIGTERM or SIGINT ends it at once (Node's default action: the handlers are gone).
 * Before the app listens there is no handler: a signal during start ends the process at once.
 */
function stopOnSignals(app: INestApplication, config: AppConfig): void {
  // Every connection of the HTTP server, including the ones Icecast sources took over.
  const sockets = new Set<Socket>();
  (app.getHttpServer() as Server).on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const stop = (signal: NodeJS.Signals) => {
    // The next signal is not handled: it ends the process at once, whatever it is doing.
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    const graceMs = config.shutdownGraceMs;
    const deadline = Date.now() + graceMs;
    killAt(deadline);
    flushLogsAtExitBy(deadline);
    console.log(`Radio Broadcaster stopping (${signal}; at most ${graceMs / 1000} s)`);
    setTimeout(() => {
      for (const s of sockets) s.destroy();
    }, graceMs / 2).unref();
    // Early enough for the log lines to be written before the deadline.
    const exitAfterMs = graceMs - Math.min(EXIT_FLUSH_MS, graceMs / 4);
    setTimeout(() => {
      console.error(`Radio Broadcaster did not stop within ${exitAfterMs / 1000} s: exiting`);
      process.exit(1);
    }, exitAfterMs).unref();
    app.close().then(
      () => process.exit(0),
      (err: Error) => {
        console.error(`Radio Broadcaster stopped with an error: ${err.stack ?? err.message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
