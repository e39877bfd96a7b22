/** What a WHIP publisher and a WHEP listener share: a state, one peer connection, a session URL. */
import type { RTCPeerConnection } from '@radiobroadcaster/sfu/client';

type BaseState = 'new' | 'connecting' | 'connected' | 'stopped' | 'failed';

export abstract class HttpSession<S extends BaseState | string> {
  state = 'new' as S;
  /** ms from start() to connectionState "connected". */
  connectMs?: number;
  /** The session's URL (DELETE it to leave), once the server answered the offer. */
  location?: string;
  /** Last failure, if any. */
  error?: string;
  protected pc?: RTCPeerConnection;
  protected token?: string;
  private stopping?: Promise<void>;

  constructor(private readonly onState?: (state: S, detail?: string) => void) {}

  protected setState(state: S, detail?: string): void {
    if (this.state === state) return;
    this.state = state;
    this.onState?.(state, detail);
  }

  /** Records a failure to set up; the connection is closed and the error passed on. */
  protected async failedStart(e: unknown): Promise<never> {
    this.error = e instanceof Error ? e.message : String(e);
    this.setState('failed' as S, this.error);
    await this.teardown();
    throw e;
  }

  /** Leaves: DELETE the session and close the connection (once, however often it is called). */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  protected abstract doStop(): Promise<void>;

  /** DELETEs the session with `del` (a failure only goes to `error`), closes, ends `stopped`. */
  protected async endSession(del: (location: string) => Promise<void>, failed: boolean) {
    try {
      if (this.location) await del(this.location);
    } catch (e) {
      // The session may already be gone (server restarted, connection failed): report, don't throw.
      this.error ??= `DELETE ${this.location}: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      this.location = undefined;
      await this.teardown();
      if (!failed) this.setState('stopped' as S);
    }
  }

  protected async teardown(): Promise<void> {
    const pc = this.pc;
    this.pc = undefined;
    if (pc) await pc.close().catch(() => undefined);
  }
}
