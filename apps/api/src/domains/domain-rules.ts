import { domainToASCII } from 'node:url';
import { parse as parseDomain } from 'tldts';

export type NormalizeResult = { ok: true; domain: string } | { ok: false; reason: string };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * 'HTTPS://Www.Example.COM:8080/path' → 'www.example.com'; 'münchen.de' → 'xn--mnchen-3ya.de';
 * '*.example.com' stays a wildcard for every subdomain. Anything that is not a hostname is refused
 * with the reason.
 */
export function normalizeDomain(input: string): NormalizeResult {
  let s = input.trim().toLowerCase();
  if (!s) return { ok: false, reason: 'Domain is empty' };
  s = s.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  s = s.replace(/[/?#].*$/, '');
  if (s.includes('@')) return { ok: false, reason: 'A domain cannot contain "@"' };
  if (s.startsWith('['))
    return { ok: false, reason: 'IP addresses are not allowed, use a hostname' };
  s = s.replace(/:\d*$/, '');
  s = s.replace(/\.$/, '');
  let wildcard = false;
  if (s.startsWith('*.')) {
    wildcard = true;
    s = s.slice(2);
  }
  if (s.includes('*'))
    return {
      ok: false,
      reason: 'A wildcard is only allowed as the first label, as in *.example.com',
    };
  if (/\s/.test(s)) return { ok: false, reason: 'A domain cannot contain spaces' };
  const ascii = domainToASCII(s);
  if (!ascii) return { ok: false, reason: `'${input.trim()}' is not a valid hostname` };
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(ascii))
    return { ok: false, reason: 'IP addresses are not allowed, use a hostname' };
  if (ascii.length > 253) return { ok: false, reason: 'A domain is at most 253 characters' };
  const labels = ascii.split('.');
  if (labels.some((l) => !LABEL.test(l))) {
    return { ok: false, reason: `'${input.trim()}' is not a valid hostname` };
  }
  if (wildcard && labels.length < 2)
    return { ok: false, reason: 'A wildcard needs a domain under it, as in *.example.com' };
  if (labels.length < 2 && ascii !== 'localhost') {
    return { ok: false, reason: 'A domain needs a dot, as in example.com' };
  }
  if (/^\d+$/.test(labels[labels.length - 1]!))
    return { ok: false, reason: `'${input.trim()}' is not a valid hostname` };
  // co.uk, github.io, blogspot.com: shared by sites of unrelated owners (the Public Suffix List,
  // private section included), so listing one (or *. one) would allow all of them.
  if (ascii !== 'localhost' && parseDomain(ascii, { allowPrivateDomains: true }).domain === null)
    return {
      ok: false,
      reason: `'${wildcard ? '*.' : ''}${ascii}' is a public suffix shared by unrelated sites: list your own domain, as in example.${ascii}`,
    };
  return { ok: true, domain: wildcard ? `*.${ascii}` : ascii };
}

/** The host of an `Origin` header value, or null when it is not an http(s) origin. */
export function originHost(origin: string): string | null {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    return url.hostname.replace(/\.$/, '').toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Exact host match, or `*.example.com` for any subdomain of example.com (not example.com itself).
 * Label-aligned, so `evil-example.com` never matches `example.com`. A listed domain means that
 * host over http or https on any port: {@link frameAncestorSources} says the same to browsers.
 */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  return allowed.some((d) =>
    d.startsWith('*.') ? host.endsWith(d.slice(1)) && host.length > d.length - 1 : host === d,
  );
}

/**
 * The embed page's `frame-ancestors` sources for the owner's list: the same rule as
 * {@link hostAllowed} (http or https, any port; `*.example.com` for subdomains only), so a page
 * that may join may also frame the player. A source without a port would match only 80/443.
 */
export function frameAncestorSources(domains: readonly string[]): string[] {
  return domains.flatMap((d) => [`https://${d}:*`, `http://${d}:*`]);
}
