/**
 * Just enough STUN (RFC 8489) to route a datagram or a TCP frame to its ICE session without a full
 * parse: is it STUN, is it a Binding request, and whose USERNAME does it carry.
 */

const MAGIC_COOKIE = 0x2112a442;
const HEADER_BYTES = 20;
const ATTR_USERNAME = 0x0006;
const BINDING_REQUEST = 0x0001;

/** A STUN message: top two bits zero, the magic cookie, a length that fits the buffer. */
export function isStun(buf: Uint8Array): boolean {
  if (buf.length < HEADER_BYTES || (buf[0]! & 0xc0) !== 0) return false;
  const view = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.length);
  if (view.readUInt32BE(4) !== MAGIC_COOKIE) return false;
  const length = view.readUInt16BE(2);
  return (length & 3) === 0 && HEADER_BYTES + length <= buf.length;
}

export function isBindingRequest(buf: Buffer): boolean {
  return isStun(buf) && buf.readUInt16BE(0) === BINDING_REQUEST;
}

/** The USERNAME attribute of a STUN message, or null. */
export function stunUsername(buf: Buffer): string | null {
  if (!isStun(buf)) return null;
  const end = HEADER_BYTES + buf.readUInt16BE(2);
  let at = HEADER_BYTES;
  while (at + 4 <= end) {
    const type = buf.readUInt16BE(at);
    const len = buf.readUInt16BE(at + 2);
    if (at + 4 + len > end) return null;
    if (type === ATTR_USERNAME) return buf.toString('utf8', at + 4, at + 4 + len);
    at += 4 + ((len + 3) & ~3);
  }
  return null;
}

/**
 * The receiving agent's ufrag in a Binding request: USERNAME is "recipient:sender", so for a request
 * that reached us it is our local ufrag.
 */
export function recipientUfrag(buf: Buffer): string | null {
  if (!isBindingRequest(buf)) return null;
  const user = stunUsername(buf);
  if (!user) return null;
  const colon = user.indexOf(':');
  return colon > 0 ? user.slice(0, colon) : null;
}
