import { Connection } from 'werift';

/**
 * werift 0.24's ICE `Connection` falls back to stun.l.google.com:19302 when no STUN server is configured,
 * even with `iceServers: []`: every peer then resolves that name and queries Google while gathering, and
 * gathering (which the SDP answer waits for) waits up to 5 s for it. Offline, concurrent joins queued
 * their failing lookups on libuv's 4 threads and many took 5.2 s to first audio; online, each join made
 * a request to a third party. Here a peer only gathers server-reflexive candidates from a STUN server
 * that was actually given (via `iceServers`).
 */
let applied = false;

export function applyWeriftPatches(): void {
  if (applied) return;
  applied = true;
  const proto = Connection.prototype as unknown as {
    getCandidatePromises?: (this: PatchedConnection, ...args: unknown[]) => unknown;
  };
  const original = proto.getCandidatePromises;
  if (typeof original !== 'function') {
    throw new Error(
      'werift changed: Connection.getCandidatePromises is gone (see werift-patches.ts)',
    );
  }
  proto.getCandidatePromises = function (this: PatchedConnection, ...args: unknown[]) {
    if (!this.options?.stunServer) this.stunServer = undefined;
    return original.apply(this, args);
  };
}

interface PatchedConnection {
  options?: { stunServer?: unknown };
  stunServer?: unknown;
}

applyWeriftPatches();
