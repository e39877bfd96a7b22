import type { AddressInfo } from 'node:net';
import { createApp } from './bootstrap.js';
import { loadConfig, settleListeningPort } from './config/config.js';
import { StartupError } from './common/startup-error.js';

try {
  const config = loadConfig();
  const app = await createApp(config);
  await app.listen(config.port, config.host);
  const { port } = app.getHttpServer().address() as AddressInfo;
  settleListeningPort(config, port);
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
