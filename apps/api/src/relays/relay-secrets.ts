import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Relay passwords at rest: AES-256-GCM with a key derived (HKDF) from the server's secret, a random
 * 96-bit IV per value, and the relay's id as associated data, so a ciphertext copied to another row
 * does not decrypt. Stored as `v1.{iv}.{tag}.{ciphertext}` (base64url).
 */
export class RelaySecrets {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(
      hkdfSync('sha256', secret, 'radio-broadcaster', 'relay-credentials', 32),
    );
  }

  encrypt(plain: string, relayId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(relayId));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'));
    return [VERSION, ...parts].join('.');
  }

  /** The password, or null when it cannot be decrypted (the server's secret changed). */
  decrypt(stored: string, relayId: string): string | null {
    const [version, iv, tag, body] = stored.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(relayId));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(body, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      return null;
    }
  }
}
