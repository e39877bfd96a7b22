import type { AddressInfo } from 'node:net';
import { createApp } from './bootstrap.js';
import { loadConfig } from './config/config.js';

const config = loadConfig();
const app = await createApp(config);
await app.listen(config.port, config.host);
const { port } = app.getHttpServer().address() as AddressInfo;
// Tests and scripts read the actual port from this line (PORT=0 picks a free one).
console.log(
  `Radio Broadcaster listening on http://127.0.0.1:${port} (public URL ${config.publicUrl})`,
);
