import { describe, expect, it } from '@jest/globals';
import { addressKey, addressOfSlot, countedViewers, listenerSlotId } from './viewer-count.js';

describe('viewerCount per address', () => {
  it('counts IPv4 by address, IPv6 by /64, IPv4-mapped IPv6 as IPv4', () => {
    expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:DB8:1:2::ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressOfSlot(listenerSlotId('2001:db8:1:2::9', 'x'))).toBe('2001:db8:1:2::/64');
  });

  it('takes what one address holds beyond the cap off the count, never below 0', () => {
    const by = new Map([
      ['a', 2000],
      ['b', 3],
      ['c', 1],
    ]);
    expect(countedViewers(2004, by, 10).viewerCount).toBe(14);
    expect(countedViewers(2004, by, 0).viewerCount).toBe(2004);
    // WHEP slots admitted but not connected yet: the count may lag, never goes negative
    expect(countedViewers(5, by, 10).viewerCount).toBe(0);
  });
});
