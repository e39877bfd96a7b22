/**
 * The test app's close does not wait on connections still open (one, from a client in another
 * process, once held a file's afterAll for 30 s).
 */
import { connect, type Socket } from 'node:net';
import { expect, it } from '@jest/globals';
import { within } from '../../../test/support/wait.js';
import { startTestApp, type TestApp } from './test-app.js';

/** Opens a connection to `app` and resolves once it is connected. */
async function connected(url: string): Promise<Socket> {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

/**
 * Closes `app` with `socket` open and expects the server to end the connection as it closes. 20 s:
 * the rest of the close (hooks, the database's drop) takes seconds on a loaded machine, which a
 * tighter bound failed on once; a close that waits for the connection takes 30 s or more.
 */
async function expectClosedWithApp(app: TestApp, socket: Socket): Promise<void> {
  const closedByServer = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const closing = app.close();
  try {
    await expect(
      within(closedByServer, 20_000, 'the server ending the connection'),
    ).resolves.toBeUndefined();
  } finally {
    socket.destroy();
  }
  await closing;
}

it('closes with a request still half-sent on an open connection, at once', async () => {
  const app = await startTestApp();
  const socket = await connected(app.url);
  // headers that never end: without closeConnectionsOnClose Node's server waits for this request
  // (up to its headersTimeout, 60 s)
  socket.write('GET /api/stations HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  await expectClosedWithApp(app, socket);
});

// A connection that has sent nothing yet is still with the Icecast source look, not with the HTTP
// server (which cannot close it): without the test app's own tracking, the close waited for the
// look's 30 s head timeout; a request whose first bytes were still in flight at the close came to
// the HTTP server after it and held the close for Node's headersTimeout (CI, once).
it('closes with a connection that has sent nothing yet, at once', async () => {
  const app = await startTestApp();
  await expectClosedWithApp(app, await connected(app.url));
});
