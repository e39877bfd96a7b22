import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  id: string;
  timestamp: number;
  signature: string;
  body: string;
  type: string;
  /** Verified by the `standardwebhooks` library (the receivers' reference implementation). */
  libraryVerified: boolean;
  /** Verified by hand, exactly as the README tells receivers to. */
  manualVerified: boolean;
  status: number;
}

/**
 * A webhook receiver on loopback that checks every request's signature two ways and answers
 * with the statuses it is told to (then 200).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private server: Server | null = null;
  url = '';

  constructor(
    public secret: string,
    /** Statuses for the first requests, in order; 200 after them. */
    public script: number[] = [],
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const status = this.script.shift() ?? 200;
        this.received.push({
          id: String(req.headers['webhook-id']),
          timestamp: Number(req.headers['webhook-timestamp']),
          signature: String(req.headers['webhook-signature']),
          body,
          type: (JSON.parse(body) as { type: string }).type,
          libraryVerified: libraryVerify(this.secret, body, req.headers),
          manualVerified: manualVerify(this.secret, body, req.headers),
          status,
        });
        res.writeHead(status, { 'Content-Type': 'text/plain' }).end(`answer ${status}`);
      });
    });
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((ok) => (this.server ? this.server.close(() => ok()) : ok()));
  }
}

function libraryVerify(secret: string, body: string, headers: IncomingHttpHeaders): boolean {
  try {
    new Webhook(secret).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

/** The recipe the README documents: HMAC-SHA256 over `{id}.{timestamp}.{body}` with the decoded secret. */
export function manualVerify(secret: string, body: string, headers: IncomingHttpHeaders): boolean {
  const id = String(headers['webhook-id'] ?? '');
  const timestamp = String(headers['webhook-timestamp'] ?? '');
  const signatures = String(headers['webhook-signature'] ?? '');
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, sig] = entry.split(',');
    if (version !== 'v1' || !sig) return false;
    const given = Buffer.from(sig, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
