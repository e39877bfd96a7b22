/**
 * What the per-address sign-up limit counts by: the address as the account is stored (trimmed,
 * lower case) with a `+tag` dropped from the local part, so `Ann+1@Example.com` and
 * `ann@example.com` share one count (one mailbox cannot be sent a verification mail per tag).
 * No provider-specific rules (Gmail's dots stay). Undefined for a body with no usable address:
 * that attempt counts only against its IP.
 */
export function signUpAddressKey(email: unknown): string | undefined {
  if (typeof email !== 'string') return undefined;
  const address = email.trim().toLowerCase();
  const at = address.lastIndexOf('@');
  if (at < 1 || at === address.length - 1 || address.length > 320) return undefined;
  const local = address.slice(0, at).replace(/\+.*$/, '');
  return `${local || address.slice(0, at)}@${address.slice(at + 1)}`;
}
