/** HTTP client for an SFU node's internal API (used by API nodes and by edges opening relay legs). */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  CapacityError,
  SdpError,
  type PacketPublisher,
  type PacketTap,
  type PublisherGoneReason,
  type SessionAnswer,
} from '../media-engine.js';
import { encodeFrame, FrameReader } from './packet-frames.js';
import {
  ErrorResponse,
  nodeRoutes,
  nodeStreams,
  PacketPublisherMessage,
  SFU_PARAMS_HEADER,
  SFU_SECRET_HEADER,
  type NodeStreamName,
  type AddListenerRequest,
  type NodeInfo,
  type NodeRequest,
  type NodeResponse,
  type NodeRouteName,
} from './schemas.js';

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

/** The node answered with an error, or with a body that breaks the protocol. */
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

/** The node is shutting down and takes no new session: another node must. */
export function isDraining(err: unknown): boolean {
  return err instanceof NodeCallError && err.tag === 'Draining';
}

export class SfuNodeClient {
  constructor(
    readonly url: string,
    private readonly secret: string,
    private readonly timeoutMs = 10_000,
  ) {}

  private async call<R extends NodeRouteName>(
    name: R,
    body: NodeRequest<R>,
    timeoutMs = this.timeoutMs,
  ): Promise<NodeResponse<R>> {
    const route = nodeRoutes[name];
    let res: Response;
    try {
      res = await fetch(`${this.url}${route.path}`, {
        method: route.method,
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
    const json = parseJson(text);
    if (res.ok) {
      const parsed = route.response.safeParse(json);
      if (parsed.success) return parsed.data as NodeResponse<R>;
      throw new NodeCallError(res.status, 'BadResponse', `${route.path}: ${parsed.error.message}`);
    }
    const e = ErrorResponse.safeParse(json);
    const { error, message } = e.success
      ? e.data
      : { error: 'Error', message: `${res.status} ${text.slice(0, 200)}` };
    if (error === 'SdpError') throw new SdpError(message);
    if (error === 'CapacityError') throw new CapacityError(message);
    throw new NodeCallError(res.status, error, message);
  }

  publish(stationId: string, offer: string): Promise<SessionAnswer> {
    return this.call('publish', { stationId, offer });
  }
  async unpublish(stationId: string, sessionId: string): Promise<boolean> {
    return (await this.call('unpublish', { stationId, sessionId })).ok;
  }
  addListener(
    stationId: string,
    offer: string,
    extra: Omit<AddListenerRequest, 'stationId' | 'offer'> = {},
  ): Promise<SessionAnswer> {
    // An edge may first open its relay leg to the origin: allow for two set-ups.
    return this.call('addListener', { stationId, offer, ...extra }, this.timeoutMs * 2);
  }
  async removeListener(stationId: string, sessionId: string, timeoutMs?: number): Promise<boolean> {
    return (await this.call('removeListener', { stationId, sessionId }, timeoutMs)).ok;
  }
  async closeStation(stationId: string): Promise<void> {
    await this.call('closeStation', { stationId });
  }
  info(timeoutMs = 2000): Promise<NodeInfo> {
    return this.call('info', undefined, timeoutMs);
  }

  /** Opens a streaming route: resolves with the response once its headers are in. */
  private stream(
    name: NodeStreamName,
    params: unknown,
  ): { req: ClientRequest; response: Promise<IncomingMessage> } {
    const route = nodeStreams[name];
    const url = new URL(route.path, this.url);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(url, {
      method: route.method,
      headers: {
        [SFU_SECRET_HEADER]: this.secret,
        [SFU_PARAMS_HEADER]: JSON.stringify(params),
        'Content-Type': 'application/octet-stream',
      },
    });
    req.setNoDelay(true);
    const response = new Promise<IncomingMessage>((resolve, reject) => {
      const timer = setTimeout(() => req.destroy(new Error('no answer')), this.timeoutMs);
      req.once('response', (res) => {
        clearTimeout(timer);
        if (res.statusCode === 200) return resolve(res);
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const e = ErrorResponse.safeParse(parseJson(Buffer.concat(chunks).toString('utf8')));
          const msg = e.success ? e.data.message : `${route.path}: ${res.statusCode}`;
          if (e.success && e.data.error === 'CapacityError') reject(new CapacityError(msg));
          else
            reject(new NodeCallError(res.statusCode ?? 0, e.success ? e.data.error : 'Error', msg));
        });
      });
      req.once('error', (err) => {
        clearTimeout(timer);
        reject(new NodeUnreachableError(this.url, err));
      });
    });
    return { req, response };
  }

  /** A packet publisher on this node: packets go up the request, the node's verdict comes back. */
  async publishPackets(stationId: string): Promise<PacketPublisher> {
    const { req, response } = this.stream('publishPackets', { stationId });
    req.flushHeaders();
    const res = await response;
    let buffered = '';
    let sessionId: string | null = null;
    let settle!: (r: PublisherGoneReason) => void;
    const gone = new Promise<PublisherGoneReason>((r) => (settle = r));
    const attached = new Promise<string>((resolve, reject) => {
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        buffered += text;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          const msg = PacketPublisherMessage.safeParse(parseJson(line));
          if (!msg.success) continue;
          if ('sessionId' in msg.data) resolve((sessionId = msg.data.sessionId));
          else settle(msg.data.gone);
        }
      });
      // the node went away without a verdict: to the station it is as if the publisher vanished
      res.on('close', () => {
        reject(new NodeUnreachableError(this.url, new Error('stream closed')));
        settle('ice-failed');
        req.destroy();
      });
    });
    const id = await attached;
    void gone.then(() => req.destroy());
    return {
      sessionId: id,
      gone,
      push: (payload, samples) => {
        if (!req.destroyed && sessionId) req.write(encodeFrame(payload, samples));
      },
      close: async () => {
        req.end();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([gone, new Promise((r) => (timer = setTimeout(r, 2000)))]);
        clearTimeout(timer);
        req.destroy();
      },
    };
  }

  /**
   * The station's packets as this node's engine forwards them. `onEnd` is called once when the
   * stream ends for any reason other than the returned function being called.
   */
  tap(stationId: string, onPacket: PacketTap, onEnd: (err?: Error) => void): () => void {
    const { req, response } = this.stream('tap', { stationId });
    let stopped = false;
    const end = (err?: Error) => {
      if (stopped) return;
      stopped = true;
      onEnd(err);
    };
    req.end();
    response.then(
      (res) => {
        const reader = new FrameReader();
        res.on('data', (chunk: Buffer) => {
          try {
            for (const f of reader.push(chunk)) onPacket(f.payload);
          } catch (err) {
            req.destroy();
            end(err as Error);
          }
        });
        res.on('close', () => end());
      },
      (err: Error) => end(err),
    );
    return () => {
      stopped = true;
      req.destroy();
    };
  }
}

function parseJson(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}
