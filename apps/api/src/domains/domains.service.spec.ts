/**
 * DomainsService's rules on a repository held in memory: normalising, the per-owner cap, idempotent
 * adds, the database cap winning a race, and which origins may play. Milliseconds; the HTTP contract
 * and the real queries are domains.spec.ts's.
 */
import { describe, expect, it } from '@jest/globals';
import { LIMITS } from '@radiobroadcaster/contracts';
import type { AllowedDomainEntity } from './allowed-domain.entity.js';
import type { DomainsRepository } from './domains.repository.js';
import { DomainsService } from './domains.service.js';
import { statusOf, type AppError } from '../common/app-error.js';

/** The HTTP status the rejection maps to (AppError's tag, as the error filter answers it). */
async function statusOfRejection(p: Promise<unknown>): Promise<number> {
  const err = await p.then(
    () => null,
    (e: unknown) => e as AppError,
  );
  if (!err) throw new Error('expected a rejection');
  return statusOf(err.tag);
}

/** The repository's contract over an array; `capRefuses` plays the database's trigger refusing an add. */
function memoryRepository(opts: { capRefuses?: boolean } = {}) {
  const rows: AllowedDomainEntity[] = [];
  const repo: Pick<DomainsRepository, keyof DomainsRepository> = {
    list: async (userId) =>
      rows.filter((r) => r.userId === userId).sort((a, b) => a.domain.localeCompare(b.domain)),
    find: async (userId, domain) =>
      rows.find((r) => r.userId === userId && r.domain === domain) ?? null,
    count: async (userId) => rows.filter((r) => r.userId === userId).length,
    insert: async (userId, domain) => {
      if (opts.capRefuses) return 'full';
      if (!rows.some((r) => r.userId === userId && r.domain === domain)) {
        rows.push({
          userId,
          domain,
          createdAt: new Date('2026-11-27T12:00:00Z'),
        } as AllowedDomainEntity);
      }
      return 'ok';
    },
    delete: async (userId, domain) => {
      const i = rows.findIndex((r) => r.userId === userId && r.domain === domain);
      if (i >= 0) rows.splice(i, 1);
      return i >= 0;
    },
    domainsOf: async (userId) => rows.filter((r) => r.userId === userId).map((r) => r.domain),
  };
  return { rows, service: new DomainsService(repo as DomainsRepository) };
}

describe('DomainsService', () => {
  it('adds a normalised domain once and lists it', async () => {
    const { service, rows } = memoryRepository();
    const first = await service.add('u1', '  https://WWW.Example.com/page ');
    expect(first).toEqual({
      created: true,
      domain: { domain: 'www.example.com', createdAt: '2026-11-27T12:00:00.000Z' },
    });
    expect((await service.add('u1', 'www.example.com')).created).toBe(false);
    expect(rows).toHaveLength(1);
    expect(await service.list('u1')).toEqual([first.domain]);
    expect(await service.list('u2')).toEqual([]);
  });

  it('refuses what is not a domain, and more than the cap (here or in the database)', async () => {
    const { service } = memoryRepository();
    expect(await statusOfRejection(service.add('u1', 'not a domain'))).toBe(400);
    for (let i = 0; i < LIMITS.allowedDomainsPerUser; i++) await service.add('u1', `s${i}.example`);
    await expect(service.add('u1', 'one-more.example')).rejects.toThrow(
      `You can allow at most ${LIMITS.allowedDomainsPerUser} domains`,
    );
    expect(await statusOfRejection(service.add('u1', 'one-more.example'))).toBe(409);
    const racing = memoryRepository({ capRefuses: true });
    expect(await statusOfRejection(racing.service.add('u1', 'a.example'))).toBe(409);
  });

  it('removes a listed domain and says when it was not listed', async () => {
    const { service } = memoryRepository();
    await service.add('u1', 'example.com');
    await service.remove('u1', 'EXAMPLE.com');
    expect(await service.hasAny('u1')).toBe(false);
    expect(await statusOfRejection(service.remove('u1', 'example.com'))).toBe(404);
  });

  it('lets any site play while the list is empty, then only listed ones (and the product itself)', async () => {
    const { service } = memoryRepository();
    const own = ['https://radio.example'];
    expect(await service.originAllowed('u1', 'https://any.site', own)).toBe(true);
    await service.add('u1', 'blog.example');
    expect(await service.originAllowed('u1', 'https://blog.example', own)).toBe(true);
    expect(await service.originAllowed('u1', 'https://any.site', own)).toBe(false);
    expect(await service.originAllowed('u1', 'null', own)).toBe(false);
    expect(await service.originAllowed('u1', null, own)).toBe(true);
    expect(await service.originAllowed('u1', 'https://radio.example', own)).toBe(true);
    expect(await service.domainsOf('u1')).toEqual(['blog.example']);
  });
});
