import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, isIP, type LookupFunction, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { AppError } from '../app-error.js';
import { isForbiddenAddress, isLocalName, socketHost } from './outbound-address.js';

/**
 * The one outbound-address policy: every connection the server makes on a user's behalf (relays,
 * their title updates, webhooks, and any later feature such as Web Push) goes through an
 * {@link OutboundPolicy}. It refuses private and special-purpose addresses (see
 * {@link isForbiddenAddress}) unless the operator allows private networks, and it checks the
 * address actually connected to: the socket's `lookup` hook filters what DNS answers, so a name
 * that resolves to a public address when it is saved and to 127.0.0.1 when it is used (DNS
 * rebinding) is still refused. Redirects are never followed.
 *
 * API: {@link OutboundPolicy.urlProblem} when a URL is saved; {@link OutboundPolicy.connect} for a
 * raw TCP/TLS socket; {@link OutboundPolicy.request} for one HTTP request; {@link OutboundPolicy.lookup}
 * for anything else that opens a net/http/tls socket (pass it as the `lookup` option, and check IP
 * literals with {@link OutboundPolicy.hostProblem} first: Node skips `lookup` for them).
 */

/** A connection the policy refused; `message` is safe to show to the user. */
export class OutboundRefused extends Error {
  override name = 'OutboundRefused';
  readonly code = 'EOUTBOUNDREFUSED';
  constructor(readonly host: string) {
    super(
      `${host} is a private or reserved address: this server only connects to public addresses`,
    );
  }
}

export interface OutboundPolicyOptions {
  /** The operator's switch (`OUTBOUND_ALLOW_PRIVATE_NETWORKS`): connect to any address. */
  allowPrivateNetworks: boolean;
  /** How names resolve (`dns.lookup` unless a test injects its own). */
  lookup?: LookupFunction;
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  timeoutMs: number;
  /** At most this many bytes of the answer are kept (default 1024); the rest is not read. */
  maxBodyBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The first bytes of the answer (never followed: a 3xx is an answer like any other). */
  body: Buffer;
}

export interface OutboundConnect {
  /** A host name or an IP literal; `[::1]` as a URL writes it is accepted too. */
  host: string;
  port: number;
  tls: boolean;
  timeoutMs: number;
}

export class OutboundPolicy {
  readonly allowPrivateNetworks: boolean;
  private readonly resolve: LookupFunction;

  constructor(opts: OutboundPolicyOptions) {
    this.allowPrivateNetworks = opts.allowPrivateNetworks;
    this.resolve = opts.lookup ?? (dnsLookup as LookupFunction);
  }

  /**
   * Why this host may not be connected to, judged without DNS (an IP literal, `localhost`), or
   * null. Names are judged again after DNS, at connect time.
   */
  hostProblem(hostname: string): string | null {
    if (this.allowPrivateNetworks) return null;
    const host = socketHost(hostname);
    if (isLocalName(host) || (isIP(host.replace(/%.*$/, '')) && isForbiddenAddress(host))) {
      return new OutboundRefused(host).message;
    }
    return null;
  }

  /** For a URL a user saves: null when it may be used, else the reason in words. */
  urlProblem(url: string): string | null {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return 'not a valid URL';
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http(s) URL';
    return this.hostProblem(u.hostname);
  }

  /** {@link urlProblem} as the 400 a create or update call answers. */
  assertUrl(url: string, field = 'url'): void {
    const problem = this.urlProblem(url);
    if (problem) {
      throw AppError.validation(`Invalid request: ${field}: ${problem}`, [
        { path: field, message: problem },
      ]);
    }
  }

  /**
   * A `dns.lookup`-compatible function that answers only allowed addresses, for the `lookup`
   * option of net, tls and http sockets: the check happens on what the socket connects to.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    const opts = typeof options === 'object' && options ? options : {};
    this.resolve(hostname, { ...opts, all: true }, (err, result) => {
      if (err) return callback(err, '', 0);
      const all = (Array.isArray(result) ? result : []) as LookupAddress[];
      const ok = this.allowPrivateNetworks
        ? all
        : all.filter((a) => !isForbiddenAddress(a.address));
      if (ok.length === 0) return callback(new OutboundRefused(hostname), '', 0);
      if ((opts as { all?: boolean }).all) {
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, ok);
      }
      callback(null, ok[0]!.address, ok[0]!.family);
    });
  };

  /** Throws {@link OutboundRefused} for a host refused without DNS. */
  private assertHost(host: string): void {
    if (this.allowPrivateNetworks) return;
    if (isLocalName(host) || (isIP(host) && isForbiddenAddress(host))) {
      throw new OutboundRefused(host);
    }
  }

  /** A TCP (or TLS) socket to an allowed address, once connected. */
  connect(c: OutboundConnect): Promise<Socket> {
    const host = socketHost(c.host);
    try {
      this.assertHost(host);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    return new Promise((resolve, reject) => {
      const socket = c.tls
        ? tlsConnect({
            host,
            port: c.port,
            lookup: this.lookup,
            ...(isIP(host) ? {} : { servername: host }),
          })
        : netConnect({ host, port: c.port, lookup: this.lookup });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(timedOut());
      }, c.timeoutMs);
      socket.once(c.tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        resolve(socket);
      });
      // Stays attached: an error before the caller adds its own listener must not crash the process.
      socket.on('error', (err: Error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(err);
      });
    });
  }

  /**
   * One HTTP(S) request to an allowed address: no redirects followed, no connection reuse, a hard
   * timeout for the whole exchange. Rejects on network errors (see {@link describeOutboundError}).
   */
  request(url: string, req: OutboundRequest): Promise<OutboundResponse> {
    let u: URL;
    try {
      u = new URL(url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
      this.assertHost(socketHost(u.hostname));
    } catch (err) {
      return Promise.reject(err as Error);
    }
    const max = req.maxBodyBytes ?? 1024;
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => out.destroy(timedOut()), req.timeoutMs);
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      const out = send(
        u,
        {
          method: req.method ?? 'GET',
          headers: {
            ...req.headers,
            ...(req.body !== undefined ? { 'Content-Length': Buffer.byteLength(req.body) } : {}),
          },
          lookup: this.lookup,
          agent: false,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const done = () =>
            settle(() =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks).subarray(0, max),
              }),
            );
          res.on('data', (chunk: Buffer) => {
            if (size < max) chunks.push(chunk);
            size += chunk.length;
            if (size >= max) {
              done();
              res.destroy();
            }
          });
          res.on('end', done);
          res.on('close', done);
          res.on('error', done);
        },
      );
      out.on('error', (err) => {
        out.destroy();
        settle(() => reject(err));
      });
      out.end(req.body);
    });
  }
}

function timedOut(): Error {
  const err = new Error('timed out') as NodeJS.ErrnoException;
  err.code = 'ETIMEDOUT';
  return err;
}

/**
 * A network failure in our own words, for users to read: never the remote server's bytes, never
 * a library's message that could quote them.
 */
export function describeOutboundError(err: unknown): string {
  if (err instanceof OutboundRefused) return err.message;
  const code = (err as NodeJS.ErrnoException | null)?.code ?? '';
  switch (code) {
    case 'ECONNREFUSED':
      return 'Connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
      return 'Host not found';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'Connection reset';
    case 'ETIMEDOUT':
    case 'ESOCKETTIMEDOUT':
      return 'Timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
      return 'Host unreachable';
  }
  if (/^HPE_/.test(code)) return 'Unexpected answer from the server (not HTTP)';
  if (/CERT|SSL|TLS|_KEY|SIGNATURE/i.test(code)) return 'Secure connection failed (TLS)';
  return 'Connection failed';
}
