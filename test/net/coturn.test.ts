/**
 * Debian's coturn running docker/coturn/turnserver.conf: it accepts the credentials the API mints,
 * refuses expired or forged ones, and relays to the SFU's address only, never to loopback or private
 * ranges.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { createTurnClient, Message, parseMessage } from 'werift';
import { mintTurnCredentials, type TurnConfig } from '../../apps/api/src/turn/ice-servers.js';
import { hostAddress, startCoturn, type Coturn } from '../support/coturn.js';

const SECRET = 'coturn-test-secret-0123456789';

/**
 * One authenticated Allocate over UDP, by hand: werift's client cannot see a 401 that answers a signed
 * request (the relay does not sign it) and waits for its timeouts instead.
 */
async function rawAllocate(
  port: number,
  creds: { username?: string; credential?: string },
): Promise<'success' | number> {
  const sock = createSocket('udp4');
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
  const exchange = (m: Message) =>
    new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer from the relay')), 3000);
      sock.once('message', (data: Buffer) => {
        clearTimeout(timer);
        resolve(parseMessage(data)!);
      });
      sock.send(m.bytes, port, '127.0.0.1');
    });
  try {
    const ALLOCATE = 0x003;
    const first = new Message(ALLOCATE, 0).setAttribute('REQUESTED-TRANSPORT', 0x11000000);
    const challenge = await exchange(first);
    const realm = challenge.getAttributeValue('REALM') as string;
    const nonce = challenge.getAttributeValue('NONCE') as Buffer;
    const key = createHash('md5').update(`${creds.username}:${realm}:${creds.credential}`).digest();
    const second = new Message(ALLOCATE, 0)
      .setAttribute('REQUESTED-TRANSPORT', 0x11000000)
      .setAttribute('USERNAME', creds.username!)
      .setAttribute('REALM', realm)
      .setAttribute('NONCE', nonce);
    second.addMessageIntegrity(key);
    second.addFingerprint();
    const answer = await exchange(second);
    if (answer.messageClass === 0x100) return 'success';
    return (answer.getAttributeValue('ERROR-CODE') as [number, string])[0];
  } finally {
    sock.close();
  }
}

describe('coturn with the documented configuration', () => {
  let coturn: Coturn;
  let turn: TurnConfig;
  const sfu = hostAddress();

  beforeAll(async () => {
    coturn = await startCoturn({ secret: SECRET, allowedPeers: [sfu] });
    turn = { urls: [`turn:127.0.0.1:${coturn.port}`], secret: SECRET, ttlSeconds: 600 };
  });
  afterAll(async () => {
    await coturn?.stop();
  });

  const allocate = async (
    creds: { username?: string; credential?: string },
    transport: 'udp' | 'tcp' = 'udp',
  ) =>
    createTurnClient(
      {
        address: ['127.0.0.1', coturn.port],
        username: creds.username!,
        password: creds.credential!,
      },
      { transport },
    );

  it.each(['udp', 'tcp'] as const)(
    'allocates a relay with minted credentials over %s',
    async (transport) => {
      const client = await allocate(mintTurnCredentials(turn, 'l-test'), transport);
      try {
        expect(client.relayedAddress[0]).toBe(sfu);
        expect(client.relayedAddress[1]).toBeGreaterThanOrEqual(50000);
      } finally {
        await client.close();
      }
    },
  );

  it('refuses expired and forged credentials', async () => {
    const fresh = mintTurnCredentials(turn, 'l-ok');
    await expect(rawAllocate(coturn.port, fresh)).resolves.toBe('success');
    const expired = mintTurnCredentials(turn, 'l-old', Date.now() - 3600_000);
    await expect(rawAllocate(coturn.port, expired)).resolves.toBe(401);
    const forged = mintTurnCredentials({ ...turn, secret: 'not-the-relay-secret-000' }, 'l-x');
    await expect(rawAllocate(coturn.port, forged)).resolves.toBe(401);
  });

  it('relays to the SFU address but refuses loopback and private ranges', async () => {
    const client = await allocate(mintTurnCredentials(turn, 'l-perm'));
    // werift types it private; the relay's answer code is what matters here
    const permit = async (ip: string): Promise<'ok' | number> => {
      try {
        await (
          client as unknown as { createPermission(a: readonly [string, number]): Promise<void> }
        ).createPermission([ip, 7882]);
        return 'ok';
      } catch (err) {
        const response = (err as { response?: Message }).response;
        return (
          (response?.getAttributeValue('ERROR-CODE') as [number, string] | undefined)?.[0] ?? -1
        );
      }
    };
    try {
      await expect(permit(sfu)).resolves.toBe('ok');
      for (const ip of [
        '127.0.0.1',
        '10.1.2.3',
        '172.16.5.5',
        '192.168.1.1',
        '169.254.169.254',
        '100.64.0.1',
      ]) {
        await expect(permit(ip)).resolves.toBe(403);
      }
    } finally {
      await client.close();
    }
  });
});
