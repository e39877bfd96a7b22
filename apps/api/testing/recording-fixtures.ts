import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readOggOpus } from '@radiobroadcaster/audio';

/** `seconds` of a 440 Hz stereo tone as real Opus packets (20 ms each), made by Debian's ffmpeg. */
export function opusPackets(seconds: number): Buffer[] {
  const dir = mkdtempSync(join(tmpdir(), 'rb-rec-src-'));
  const file = join(dir, 'tone.ogg');
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${seconds}`,
    '-ac',
    '2',
    '-c:a',
    'libopus',
    '-b:a',
    '64k',
    '-frame_duration',
    '20',
    file,
  ]);
  return readOggOpus(readFileSync(file)).packets;
}

/**
 * Our own tap interface (`AudioTapSource`) fed by the test: the publisher's packets played into it
 * at once, so a recording of known content and length is made in milliseconds.
 */
export class ScriptedTap {
  readonly subscribers = new Map<string, (p: Buffer) => void>();
  subscribe(stationId: string, onPacket: (p: Buffer) => void): () => void {
    this.subscribers.set(stationId, onPacket);
    return () => this.subscribers.delete(stationId);
  }
  play(stationId: string, packets: Buffer[]): void {
    for (const p of packets) this.subscribers.get(stationId)?.(p);
  }
}
