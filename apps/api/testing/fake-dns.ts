import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';

/** DNS as the test says: names map to addresses; anything else is not found. No real resolver. */
/** Names it was asked for, in order, are in `asked`. */
export function fakeDns(table: Record<string, string[]>): LookupFunction & { asked: string[] } {
  const asked: string[] = [];
  const lookup = ((hostname: string, options: unknown, callback: unknown) => {
    asked.push(hostname);
    const cb = (typeof options === 'function' ? options : callback) as (
      err: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void;
    const all = typeof options === 'object' && (options as { all?: boolean }).all;
    const addresses = table[hostname];
    setImmediate(() => {
      if (!addresses) {
        const err = new Error(`getaddrinfo ENOTFOUND ${hostname}`) as NodeJS.ErrnoException;
        err.code = 'ENOTFOUND';
        return cb(err, all ? [] : '', 0);
      }
      const list = addresses.map((address) => ({
        address,
        family: address.includes(':') ? 6 : 4,
      }));
      if (all) cb(null, list);
      else cb(null, list[0]!.address, list[0]!.family);
    });
  }) as unknown as LookupFunction & { asked: string[] };
  lookup.asked = asked;
  return lookup;
}
