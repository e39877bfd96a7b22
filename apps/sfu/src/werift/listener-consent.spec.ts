import { describe, expect, it } from '@jest/globals';
import { Message, parseMessage } from '../boundary/werift.js';
import {
  CONSENT_TIMEOUT_MS,
  ListenerConsent,
  type ConsentCredentials,
} from './listener-consent.js';

/** The SFU's side: its ufrag/password and the listener's, as the SDP exchange set them. */
const creds: ConsentCredentials = {
  localUsername: 'sfuAbcdef0123',
  localPassword: 'sfu-password-0123456789',
  remoteUsername: 'lstn',
  remotePassword: 'listener-password-abcdefgh',
  iceControlling: false,
  tieBreaker: 0x1122334455667788n,
  priority: 1853824767,
};
const peerAddr = ['192.0.2.7', 40123] as const;

/** A consent check the listener's agent sends (werift builds and signs it, as a browser would). */
function listenerCheck(opts: { password?: string; username?: string; controlled?: boolean } = {}) {
  const m = new Message(1, 0);
  m.setAttribute('USERNAME', opts.username ?? `${creds.localUsername}:${creds.remoteUsername}`);
  m.setAttribute('PRIORITY', 1845501695);
  if (opts.controlled) m.setAttribute('ICE-CONTROLLED', 42n);
  else m.setAttribute('ICE-CONTROLLING', 42n);
  m.addMessageIntegrity(Buffer.from(opts.password ?? creds.localPassword, 'utf8'));
  m.addFingerprint();
  return { message: m, bytes: m.bytes };
}

describe('ListenerConsent (the SFU answering and sending consent checks itself)', () => {
  it("answers a listener's signed check with a success that werift verifies, with the listener's address", () => {
    const consent = new ListenerConsent(creds, peerAddr, 0);
    const { message, bytes } = listenerCheck();
    const { outcome, reply } = consent.receive(bytes, 1000);
    expect(outcome).toBe('request');
    expect(consent.heard).toBe(1);
    // werift checks MESSAGE-INTEGRITY with our password, and the FINGERPRINT, as the listener does
    const parsed = parseMessage(reply!, Buffer.from(creds.localPassword, 'utf8'));
    expect(parsed).toBeDefined();
    expect(parsed!.messageMethod).toBe(1);
    expect(parsed!.messageClass).toBe(256);
    expect(parsed!.transactionIdHex).toBe(message.transactionIdHex);
    expect(parsed!.getAttributeValue('XOR-MAPPED-ADDRESS')).toEqual([...peerAddr]);
    expect(parsed!.getAttributeValue('FINGERPRINT')).toBeDefined();
  });

  it('drops a check signed with another password, and leaves other ufrags and role conflicts to werift', () => {
    const consent = new ListenerConsent(creds, peerAddr, 0);
    expect(consent.receive(listenerCheck({ password: 'not-the-password' }).bytes, 1).outcome).toBe(
      'forged',
    );
    expect(
      consent.receive(listenerCheck({ username: `other:${creds.remoteUsername}` }).bytes, 1)
        .outcome,
    ).toBe('pass');
    expect(consent.receive(listenerCheck({ controlled: true }).bytes, 1).outcome).toBe('pass');
    // not STUN at all (an SRTCP packet)
    expect(consent.receive(Buffer.from([0x80, 0xc9, 0, 1, 0, 0, 0, 1]), 1).outcome).toBe('pass');
    expect(consent.heard).toBe(0);
  });

  it('sends checks werift accepts, and only a signed answer to the latest one refreshes consent', () => {
    const consent = new ListenerConsent(creds, peerAddr, 0);
    const check = consent.check(5000);
    const req = parseMessage(check, Buffer.from(creds.remotePassword, 'utf8'));
    expect(req).toBeDefined();
    expect(req!.messageClass).toBe(0);
    expect(req!.getAttributeValue('USERNAME')).toBe(
      `${creds.remoteUsername}:${creds.localUsername}`,
    );
    expect(req!.getAttributeValue('ICE-CONTROLLED')).toBe(creds.tieBreaker);
    expect(req!.getAttributeValue('PRIORITY')).toBe(creds.priority);
    expect(consent.nextCheckAt).toBeGreaterThanOrEqual(5000 + 4000);
    expect(consent.nextCheckAt).toBeLessThanOrEqual(5000 + 6000);

    const answer = (txId: Buffer, password: string) => {
      const m = new Message(1, 256, txId);
      m.setAttribute('XOR-MAPPED-ADDRESS', ['198.51.100.1', 3478]);
      m.addMessageIntegrity(Buffer.from(password, 'utf8'));
      m.addFingerprint();
      return m.bytes;
    };
    // wrong password, then an unknown transaction: neither counts
    expect(consent.receive(answer(req!.transactionId, 'wrong'), 6000).outcome).toBe('forged');
    expect(consent.receive(answer(Buffer.alloc(12, 7), creds.remotePassword), 6000).outcome).toBe(
      'pass',
    );
    expect(consent.consentAt).toBe(0);
    // the listener's answer
    expect(consent.receive(answer(req!.transactionId, creds.remotePassword), 6000).outcome).toBe(
      'response',
    );
    expect(consent.consentAt).toBe(6000);
    // answered once: a replay is not a fresh consent
    expect(consent.receive(answer(req!.transactionId, creds.remotePassword), 9000).outcome).toBe(
      'pass',
    );
    expect(consent.consentAt).toBe(6000);
    // each check has its own transaction id
    const next = parseMessage(consent.check(11000))!;
    expect(next.transactionIdHex).not.toBe(req!.transactionIdHex);
  });

  it('expires consent 30 s after the last answer (RFC 7675)', () => {
    const consent = new ListenerConsent(creds, peerAddr, 1000);
    expect(consent.expired(1000 + CONSENT_TIMEOUT_MS)).toBe(false);
    expect(consent.expired(1000 + CONSENT_TIMEOUT_MS + 1)).toBe(true);
  });
});
