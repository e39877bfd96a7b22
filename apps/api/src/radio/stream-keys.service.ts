import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/config.js';
import { DomainsService } from '../domains/domains.service.js';
import { EventBus } from '../events/event-bus.js';
import type { RadioSettingsEntity } from './radio-settings.entity.js';
import { RadioSettingsRepository } from './radio-settings.repository.js';

/** Recognisable prefix, so secret scanners and people can tell a stream key when they see one. */
export const STREAM_KEY_PREFIX = 'rbsk_';

export function hashStreamKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * Persistent stream keys for software configured once (OBS, BUTT, Mixxx, ffmpeg, encoders).
 * The database holds only the key's hash and a random nonce: the key is HMAC(server secret,
 * station, nonce), so its owner can be shown it again while a stolen database reveals nothing.
 */
@Injectable()
export class StreamKeysService {
  constructor(
    @Inject(RadioSettingsRepository) private readonly repo: RadioSettingsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(DomainsService) private readonly domains: DomainsService,
  ) {}

  private derive(stationId: string, nonce: string): string {
    const mac = createHmac('sha256', this.config.authSecret)
      .update(`stream-key\0${stationId}\0${nonce}`)
      .digest('base64url');
    return `${STREAM_KEY_PREFIX}${mac}`;
  }

  /** The station's settings, created with a first key the first time they are asked for. */
  async settings(stationId: string): Promise<RadioSettingsEntity> {
    const existing = await this.repo.find(stationId);
    if (existing) return existing;
    const nonce = randomBytes(16).toString('hex');
    await this.repo.insertIfAbsent({
      stationId,
      streamKeyNonce: nonce,
      streamKeyHash: hashStreamKey(this.derive(stationId, nonce)),
      streamKeyRotatedAt: new Date(),
    });
    return this.repo.get(stationId);
  }

  /** The current key, or null when it cannot be re-derived (the server secret changed). */
  reveal(settings: RadioSettingsEntity): string | null {
    const key = this.derive(settings.stationId, settings.streamKeyNonce);
    return hashStreamKey(key) === settings.streamKeyHash ? key : null;
  }

  /** A new key; sources still using the old one are cut off (`station.streamKeyRotated`). */
  async rotate(stationId: string): Promise<string> {
    await this.settings(stationId);
    const nonce = randomBytes(16).toString('hex');
    const key = this.derive(stationId, nonce);
    await this.repo.update(stationId, {
      streamKeyNonce: nonce,
      streamKeyHash: hashStreamKey(key),
      streamKeyRotatedAt: new Date(),
    });
    await this.bus.publish('station.streamKeyRotated', { stationId });
    return key;
  }

  /** The hash of `presented` when it is the station's current key, otherwise null. */
  async verify(stationId: string, presented: string): Promise<string | null> {
    if (!presented.startsWith(STREAM_KEY_PREFIX) || presented.length > 200) return null;
    const current = await this.repo.keyHash(stationId);
    if (!current) return null;
    const hash = hashStreamKey(presented);
    const ok = timingSafeEqual(Buffer.from(hash, 'hex'), Buffer.from(current, 'hex'));
    return ok ? hash : null;
  }

  /** Whether `keyHash` is still the station's key (a source checks this after a rotation). */
  async isCurrent(stationId: string, keyHash: string): Promise<boolean> {
    return (await this.repo.keyHash(stationId)) === keyHash;
  }

  /**
   * The owner's choice. Turning it on while no domains are listed is the default (kept as such, so
   * listing domains later still turns it off); turning it on with domains listed is the owner's
   * explicit "play anywhere", kept until they change it.
   */
  async setPublicStreamUrl(
    stationId: string,
    ownerId: string,
    value: boolean,
  ): Promise<RadioSettingsEntity> {
    await this.settings(stationId);
    const stored = value && !(await this.domains.hasAny(ownerId)) ? null : value;
    await this.repo.update(stationId, { publicStreamUrl: stored });
    return this.repo.get(stationId);
  }

  /**
   * Whether the plain stream URL plays without a signed link: as the owner set it, else on while
   * the owner lists no allowed domains.
   */
  async publicStreamUrl(stationId: string, ownerId: string): Promise<boolean> {
    return (await this.repo.publicStreamUrl(stationId)) ?? !(await this.domains.hasAny(ownerId));
  }

  /** Whether the owner lists allowed domains (the default of the setting above is then off). */
  domainsListed(ownerId: string): Promise<boolean> {
    return this.domains.hasAny(ownerId);
  }
}
