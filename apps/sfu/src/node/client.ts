/** HTTP client for an SFU node's internal API (used by API nodes and by edges opening relay legs). */
import { CapacityError, SdpError, type SessionAnswer } from '../media-engine.js';
import {
  SFU_SECRET_HEADER,
  type AddListenerRequest,
  type AnswerResponse,
  type ErrorResponse,
  type NodeInfo,
} from './protocol.js';

/** The node could not be reached (connection refused, timeout): it is probably dead. */
export class NodeUnreachableError extends Error {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`SFU node ${url} unreachable: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'NodeUnreachableError';
  }
}

export class NodeCallError extends Error {
  constructor(
    readonly status: number,
    readonly tag: string,
    message: string,
  ) {
    super(message);
    this.name = 'NodeCallError';
  }
}

export class SfuNodeClient {
  constructor(
    readonly url: string,
    private readonly secret: string,
    private readonly timeoutMs = 10_000,
  ) {}

  private async call<T>(path: string, body?: unknown, timeoutMs = this.timeoutMs): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          [SFU_SECRET_HEADER]: this.secret,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new NodeUnreachableError(this.url, err);
    }
    const text = await res.text();
    if (res.ok) return (text ? JSON.parse(text) : undefined) as T;
    let e: ErrorResponse = { error: 'Error', message: `${res.status} ${text.slice(0, 200)}` };
    try {
      e = JSON.parse(text) as ErrorResponse;
    } catch {
      /* keep the raw text */
    }
    if (e.error === 'SdpError') throw new SdpError(e.message);
    if (e.error === 'CapacityError') throw new CapacityError(e.message);
    throw new NodeCallError(res.status, e.error, e.message);
  }

  publish(stationId: string, offer: string): Promise<SessionAnswer> {
    return this.call<AnswerResponse>('/v1/publish', { stationId, offer });
  }
  async unpublish(stationId: string, sessionId: string): Promise<boolean> {
    return (await this.call<{ ok: boolean }>('/v1/unpublish', { stationId, sessionId })).ok;
  }
  addListener(
    stationId: string,
    offer: string,
    extra: Omit<AddListenerRequest, 'stationId' | 'offer'> = {},
  ): Promise<SessionAnswer> {
    // An edge may first open its relay leg to the origin: allow for two set-ups.
    return this.call<AnswerResponse>(
      '/v1/listeners',
      { stationId, offer, ...extra },
      this.timeoutMs * 2,
    );
  }
  async removeListener(stationId: string, sessionId: string, timeoutMs?: number): Promise<boolean> {
    return (
      await this.call<{ ok: boolean }>(
        '/v1/listeners/remove',
        { stationId, sessionId },
        timeoutMs ?? this.timeoutMs,
      )
    ).ok;
  }
  async restartIce(stationId: string, sessionId: string, offer: string): Promise<string | null> {
    return (
      await this.call<{ answerSdp: string | null }>('/v1/restart-ice', {
        stationId,
        sessionId,
        offer,
      })
    ).answerSdp;
  }
  async closeStation(stationId: string): Promise<void> {
    await this.call('/v1/close-station', { stationId });
  }
  info(timeoutMs = 2000): Promise<NodeInfo> {
    return this.call<NodeInfo>('/v1/info', undefined, timeoutMs);
  }
}
