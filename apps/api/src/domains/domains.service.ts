import { Inject, Injectable } from '@nestjs/common';
import { type AllowedDomain, LIMITS } from '@radiobroadcaster/contracts';
import { AppError } from '../common/app-error.js';
import type { AllowedDomainEntity } from './allowed-domain.entity.js';
import { DomainsRepository } from './domains.repository.js';
import { hostAllowed, normalizeDomain, originHost } from './domain-rules.js';

@Injectable()
export class DomainsService {
  constructor(@Inject(DomainsRepository) private readonly repo: DomainsRepository) {}

  async list(userId: string): Promise<AllowedDomain[]> {
    return (await this.repo.list(userId)).map(view);
  }

  /** Adds a normalised domain; adding one already there returns it without a second row. */
  async add(userId: string, input: string): Promise<{ domain: AllowedDomain; created: boolean }> {
    const normalized = normalizeDomain(input);
    if (!normalized.ok)
      throw AppError.validation(normalized.reason, [
        { path: 'domain', message: normalized.reason },
      ]);
    const existing = await this.repo.find(userId, normalized.domain);
    if (existing) return { domain: view(existing), created: false };
    if ((await this.repo.count(userId)) >= LIMITS.allowedDomainsPerUser) throw full();
    if ((await this.repo.insert(userId, normalized.domain)) === 'full') throw full();
    const row = await this.repo.find(userId, normalized.domain);
    if (!row) throw new Error(`allowed domain ${normalized.domain} vanished after its insert`);
    return { domain: view(row), created: true };
  }

  async remove(userId: string, input: string): Promise<void> {
    const normalized = normalizeDomain(input);
    const domain = normalized.ok ? normalized.domain : input.trim().toLowerCase();
    if (!(await this.repo.delete(userId, domain)))
      throw AppError.notFound(`'${input}' is not among your allowed domains`);
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
    const domains = await this.repo.domainsOf(ownerId);
    if (domains.length === 0) return true;
    if (origin === 'null') return false;
    const host = originHost(origin);
    return host !== null && hostAllowed(host, domains);
  }

  /** Whether the owner lists any domain (then stream URLs are private by default). */
  async hasAny(ownerId: string): Promise<boolean> {
    return (await this.repo.count(ownerId)) > 0;
  }

  /** The owner's list, for the embed page's `frame-ancestors`. */
  async domainsOf(ownerId: string): Promise<string[]> {
    return this.repo.domainsOf(ownerId);
  }
}

function full(): AppError {
  return AppError.conflict(`You can allow at most ${LIMITS.allowedDomainsPerUser} domains`);
}

function view(row: AllowedDomainEntity): AllowedDomain {
  return { domain: row.domain, createdAt: row.createdAt.toISOString() };
}
