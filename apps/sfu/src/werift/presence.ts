/** A shard's presence check: listeners that never connect, or fall silent, or lose consent, go. */
import { activity, type Listener, type StationListeners } from './listener.js';

/**
 * How long a listener that has not connected yet is kept: as long as WHEP clients wait for the
 * connection (the CLI 15 s), whatever listenerTimeoutMs says of connected ones. On a lossy link under
 * load a handshake can need 10 s (checks and DTLS flights lost, backing off); removing it at 10 s
 * failed joins whose client was still retransmitting.
 */
export const JOIN_WINDOW_MS = 15000;

export class Presence {
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly stations: ReadonlyMap<string, StationListeners>,
    private readonly listenerTimeoutMs: number,
    private readonly remove: (l: Listener, reason: string) => void,
  ) {
    const check = Math.min(500, Math.max(100, Math.floor(listenerTimeoutMs / 10)));
    this.timer = setInterval(() => this.checkPresence(), check);
    this.timer.unref();
  }

  /** Presence: a connected listener must show inbound traffic (STUN consent, RTCP) regularly. */
  private checkPresence(): void {
    const now = Date.now();
    const timeout = this.listenerTimeoutMs;
    // peers send consent checks every 4-6 s and answer ours: 2 missed rounds => gone. Anything the
    // peer sends on any pair counts: its checks often go on the pair it nominated, which need not be
    // ours, and the answers to ours are not counted when they come after werift stopped waiting
    // (0.5 s), as they do from a busy peer
    const silence = Math.max(2000, timeout - 1500);
    for (const st of [...this.stations.values()]) {
      for (const l of [...st.all.values()]) {
        if (!l.connected) {
          if (now - l.createdAt > Math.max(timeout, JOIN_WINDOW_MS)) {
            this.remove(l, 'connect-timeout');
          }
          continue;
        }
        const act = activity(l.ice) + (l.consent?.heard ?? 0);
        if (act !== l.activity) {
          l.activity = act;
          l.lastActivity = now;
        } else if (now - l.lastActivity > silence) {
          this.remove(l, 'consent-timeout');
          continue;
        }
        const ice = l.ice!;
        l.sendable =
          ice.state !== 'failed' && ice.state !== 'closed' && (ice.consentFresh || !!ice.iceLite);
        const consent = l.consent;
        if (consent) {
          if (consent.expired(now)) {
            l.ice!.consentFresh = false;
            this.remove(l, 'consent-expired');
          } else if (now >= consent.nextCheckAt) {
            l.socket?.send(consent.check(now));
          }
        }
      }
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
