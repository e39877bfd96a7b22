import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type AllowedDomain, LIMITS } from '@radiobroadcaster/contracts';
import { QueryFailedError, type Repository } from 'typeorm';
import { AppError } from '../common/app-error.js';
import { AllowedDomainEntity } from './allowed-domain.entity.js';
import { hostAllowed, normalizeDomain, originHost } from './domain-rules.js';

@Injectable()
export class DomainsService {
  constructor(
    @InjectRepository(AllowedDomainEntity) private readonly repo: Repository<AllowedDomainEntity>,
  ) {}

  async list(userId: string): Promise<AllowedDomain[]> {
    const rows = await this.repo.find({ where: { userId }, order: { domain: 'ASC' } });
    return rows.map(view);
  }

  /** Adds a normalised domain; adding one already there returns it without a second row. */
  async add(userId: string, input: string): Promise<{ domain: AllowedDomain; created: boolean }> {
    const normalized = normalizeDomain(input);
    if (!normalized.ok)
      throw AppError.validation(normalized.reason, [
        { path: 'domain', message: normalized.reason },
      ]);
    const existing = await this.repo.findOne({ where: { userId, domain: normalized.domain } });
    if (existing) return { domain: view(existing), created: false };
    if ((await this.repo.count({ where: { userId } })) >= LIMITS.allowedDomainsPerUser)
      throw full();
    try {
      await this.repo
        .createQueryBuilder()
        .insert()
        .values({ userId, domain: normalized.domain })
        .orIgnore()
        .execute();
    } catch (err) {
      // The database has the last word when adds race (see the allowed_domains_cap trigger).
      const d =
        err instanceof QueryFailedError ? (err.driverError as { constraint?: string }) : null;
      if (d?.constraint === 'allowed_domains_per_user_max') throw full();
      throw err;
    }
    const row = await this.repo.findOneOrFail({ where: { userId, domain: normalized.domain } });
    return { domain: view(row), created: true };
  }

  async remove(userId: string, input: string): Promise<void> {
    const normalized = normalizeDomain(input);
    const domain = normalized.ok ? normalized.domain : input.trim().toLowerCase();
    const { affected } = await this.repo.delete({ userId, domain });
    if (!affected) throw AppError.notFound(`'${input}' is not among your allowed domains`);
  }

  /**
   * Whether a page on `origin` may play this owner's stations. Browsers always send `Origin` on a
   * POST, so its absence means a non-browser client, which no domain list can restrict anyway.
   * The product's own origins are always allowed; otherwise an empty list allows every site.
   * `Origin: null` is a browser page whose site is hidden (sandboxed iframe, data: URL): it can
   * never match a listed domain.
   */
  async originAllowed(
    ownerId: string,
    origin: string | null,
    ownOrigins: readonly string[],
  ): Promise<boolean> {
    if (origin === null || ownOrigins.includes(origin)) return true;
    const rows = await this.repo.find({ where: { userId: ownerId }, select: { domain: true } });
    if (rows.length === 0) return true;
    if (origin === 'null') return false;
    const host = originHost(origin);
    return (
      host !== null &&
      hostAllowed(
        host,
        rows.map((r) => r.domain),
      )
    );
  }

  /** Whether the owner lists any domain (then stream URLs are private by default). */
  async hasAny(ownerId: string): Promise<boolean> {
    return (await this.repo.count({ where: { userId: ownerId } })) > 0;
  }

  /** The owner's list, for the embed page's `frame-ancestors`. */
  async domainsOf(ownerId: string): Promise<string[]> {
    const rows = await this.repo.find({ where: { userId: ownerId }, select: { domain: true } });
    return rows.map((r) => r.domain);
  }
}

function full(): AppError {
  return AppError.conflict(`You can allow at most ${LIMITS.allowedDomainsPerUser} domains`);
}

function view(row: AllowedDomainEntity): AllowedDomain {
  return { domain: row.domain, createdAt: row.createdAt.toISOString() };
}
