import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export interface WebhookResponse {
  /** The receiver's status, or null when none came. */
  status: number | null;
  error: string | null;
  /** The first bytes of the answer. */
  body: string | null;
  durationMs: number;
  /** `Retry-After` in seconds, when a 429/503 carried one. */
  retryAfterSeconds: number | null;
}

/** Sends one webhook request; a fake stands in for it in unit tests. */
export abstract class WebhookSender {
  abstract send(req: WebhookRequest): Promise<WebhookResponse>;
}

const RESPONSE_BODY_MAX = 1024;

/** Addresses a webhook must never reach unless private networks are allowed (SSRF). */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
    return PRIVATE.check(address, 'ipv6');
  }
  return true;
}

/** Resolves like `dns.lookup` but refuses private addresses, checked at connect time (DNS rebinding). */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const ok = addresses.filter((a) => !isPrivateAddress(a.address));
    if (ok.length === 0) {
      const e = new Error(`${hostname} resolves to a private address`) as NodeJS.ErrnoException;
      e.code = 'EPRIVATE';
      return callback(e, '', 0);
    }
    if ((options as { all?: boolean }).all)
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, ok);
    callback(null, ok[0]!.address, ok[0]!.family);
  });
};

/** Plain HTTP(S) POST with a hard timeout; redirects are not followed (a 3xx is a failure). */
export class HttpWebhookSender extends WebhookSender {
  constructor(private readonly allowPrivateNetworks: boolean) {
    super();
  }

  send(req: WebhookRequest): Promise<WebhookResponse> {
    const started = performance.now();
    const done = (partial: Omit<WebhookResponse, 'durationMs'>): WebhookResponse => ({
      ...partial,
      durationMs: Math.round(performance.now() - started),
    });
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return Promise.resolve(
        done({ status: null, error: 'Invalid URL', body: null, retryAfterSeconds: null }),
      );
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!this.allowPrivateNetworks && isIP(host) && isPrivateAddress(host)) {
      return Promise.resolve(
        done({
          status: null,
          error: `${host} is a private address`,
          body: null,
          retryAfterSeconds: null,
        }),
      );
    }
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (r: WebhookResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      const out = request(
        url,
        {
          method: 'POST',
          headers: { ...req.headers, 'Content-Length': Buffer.byteLength(req.body) },
          lookup: this.allowPrivateNetworks ? undefined : publicOnlyLookup,
          agent: false,
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (size < RESPONSE_BODY_MAX) chunks.push(chunk);
            size += chunk.length;
            if (size >= RESPONSE_BODY_MAX) res.destroy();
          });
          const complete = () => {
            const status = res.statusCode ?? null;
            const body = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_MAX).toString('utf8');
            const redirect = status !== null && status >= 300 && status < 400;
            finish(
              done({
                status,
                error: redirect ? 'Redirects are not followed' : null,
                body: body || null,
                retryAfterSeconds: retryAfter(res.headers['retry-after']),
              }),
            );
          };
          res.on('end', complete);
          res.on('close', complete);
          res.on('error', complete);
        },
      );
      const timer = setTimeout(() => {
        out.destroy(new Error(`No answer within ${Math.round(req.timeoutMs / 1000)} s`));
      }, req.timeoutMs);
      out.on('error', (err: NodeJS.ErrnoException) => {
        finish(
          done({
            status: null,
            error: describe(err),
            body: null,
            retryAfterSeconds: null,
          }),
        );
      });
      out.end(req.body);
    });
  }
}

function retryAfter(header: string | undefined): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.round((at - Date.now()) / 1000));
}

function describe(err: NodeJS.ErrnoException): string {
  const known: Record<string, string> = {
    ECONNREFUSED: 'Connection refused',
    ENOTFOUND: 'Host not found',
    EAI_AGAIN: 'Host not found',
    ECONNRESET: 'Connection reset',
  };
  return (err.code && known[err.code]) || err.message.slice(0, 300);
}
