import { FRAME_SAMPLES, OPUS_RATE, OpusEncoder } from '@radiobroadcaster/audio';

/**
 * The demo station's music: a 16-second loop synthesised here, note for note, so it is the same on
 * every start, ours to give away (CC0) and nothing to download. Four bars of a soft pad
 * (C, Am, F, G) under a plucked arpeggio; the loop ends where it starts, so it repeats seamlessly.
 */
export const DEMO_TRACK = {
  track: 'Morning Drift (loop)',
  artist: 'Radio Broadcaster',
  album: 'Demo · CC0',
};

const BPM = 60;
const BARS: number[][] = [
  [48, 55, 60, 64], // C
  [45, 52, 57, 60], // Am
  [41, 48, 53, 57], // F
  [43, 50, 55, 59], // G
];
const SECONDS_PER_BAR = (4 * 60) / BPM;
export const DEMO_LOOP_SECONDS = BARS.length * SECONDS_PER_BAR;

const hz = (midi: number) => 440 * 2 ** ((midi - 69) / 12);

/** Interleaved stereo float samples of one loop. */
export function synthesiseDemoLoop(): Float32Array {
  const total = Math.round(DEMO_LOOP_SECONDS * OPUS_RATE);
  const out = new Float32Array(total * 2);
  const barSamples = SECONDS_PER_BAR * OPUS_RATE;
  const step = barSamples / 8; // eighth notes
  for (let i = 0; i < total; i++) {
    const t = i / OPUS_RATE;
    const bar = Math.floor(i / barSamples);
    const inBar = i - bar * barSamples;
    // Pad: the bar's chord, faded in and out over each bar's edges so bars join without clicks.
    const edge = Math.min(inBar, barSamples - inBar) / (0.08 * OPUS_RATE);
    const padEnv = Math.min(1, edge);
    let pad = 0;
    for (const note of BARS[bar]!) pad += Math.sin(2 * Math.PI * hz(note) * t);
    pad *= 0.045 * padEnv;
    // Pluck: arpeggio over the chord one octave up, decaying quickly.
    const n = Math.floor(inBar / step);
    const since = (inBar - n * step) / OPUS_RATE;
    const chord = BARS[bar]!;
    const note = chord[[0, 1, 2, 3, 2, 1, 2, 3][n]!]! + 12;
    const attack = Math.min(1, since / 0.005);
    const pluckEnv = attack * Math.exp(-since * 8);
    const f = hz(note);
    const pluck =
      (Math.sin(2 * Math.PI * f * since) + 0.3 * Math.sin(4 * Math.PI * f * since)) *
      0.12 *
      pluckEnv;
    // A little width: the pluck leans left on even steps, right on odd ones.
    const pan = n % 2 === 0 ? 0.65 : 0.35;
    out[2 * i] = pad + pluck * (1 - pan) * 1.4;
    out[2 * i + 1] = pad + pluck * pan * 1.4;
  }
  return out;
}

/** The loop as 20 ms Opus packets (encoded once at start). */
export function encodeDemoLoop(bitrate = 96_000): Buffer[] {
  const pcm = synthesiseDemoLoop();
  const encoder = new OpusEncoder({ channels: 2, bitrate });
  const frame = new Int16Array(FRAME_SAMPLES * 2);
  const packets: Buffer[] = [];
  try {
    for (let pos = 0; pos + frame.length <= pcm.length; pos += frame.length) {
      for (let j = 0; j < frame.length; j++) {
        const s = pcm[pos + j]!;
        frame[j] = s >= 1 ? 32767 : s <= -1 ? -32768 : Math.round(s * 32767);
      }
      packets.push(Buffer.from(encoder.encode(frame)));
    }
  } finally {
    encoder.delete();
  }
  return packets;
}
