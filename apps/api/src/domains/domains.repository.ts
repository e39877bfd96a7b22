import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, type Repository } from 'typeorm';
import { AllowedDomainEntity } from './allowed-domain.entity.js';

/** All allowed-domain I/O (the owner's list of sites that may embed their stations). */
@Injectable()
export class DomainsRepository {
  constructor(
    @InjectRepository(AllowedDomainEntity) private readonly repo: Repository<AllowedDomainEntity>,
  ) {}

  /** The owner's rows, by domain. */
  list(userId: string): Promise<AllowedDomainEntity[]> {
    return this.repo.find({ where: { userId }, order: { domain: 'ASC' } });
  }

  find(userId: string, domain: string): Promise<AllowedDomainEntity | null> {
    return this.repo.findOne({ where: { userId, domain } });
  }

  count(userId: string): Promise<number> {
    return this.repo.count({ where: { userId } });
  }

  /**
   * Adds the row unless it is there; 'full' when the database's cap refused it (the
   * allowed_domains_cap trigger has the last word when adds race).
   */
  async insert(userId: string, domain: string): Promise<'ok' | 'full'> {
    try {
      await this.repo.createQueryBuilder().insert().values({ userId, domain }).orIgnore().execute();
      return 'ok';
    } catch (err) {
      const d =
        err instanceof QueryFailedError ? (err.driverError as { constraint?: string }) : null;
      if (d?.constraint === 'allowed_domains_per_user_max') return 'full';
      throw err;
    }
  }

  /** Whether a row was deleted. */
  async delete(userId: string, domain: string): Promise<boolean> {
    const { affected } = await this.repo.delete({ userId, domain });
    return !!affected;
  }

  /** The owner's domains, names only. */
  async domainsOf(userId: string): Promise<string[]> {
    const rows = await this.repo.find({ where: { userId }, select: { domain: true } });
    return rows.map((r) => r.domain);
  }
}
