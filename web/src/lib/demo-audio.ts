/**
 * The demo station has no publisher: it plays a soft generated chord so the page (and the Media
 * Session test page) behave like a real station without any call.
 */
export class DemoTone {
  private ctx: AudioContext | null = null;

  start(audio: HTMLAudioElement): void {
    this.stop();
    const ctx = new AudioContext();
    this.ctx = ctx;
    const out = ctx.createMediaStreamDestination();
    const master = ctx.createGain();
    master.gain.value = 0.08;
    master.connect(out);
    const lfo = ctx.createOscillator();
    const lfoGain = ctx.createGain();
    lfo.frequency.value = 0.2;
    lfoGain.gain.value = 0.03;
    lfo.connect(lfoGain).connect(master.gain);
    lfo.start();
    for (const freq of [220, 277.18, 329.63]) {
      const osc = ctx.createOscillator();
      osc.type = 'sine';
      osc.frequency.value = freq;
      osc.connect(master);
      osc.start();
    }
    audio.srcObject = out.stream;
    void audio.play().catch(() => undefined);
  }

  stop(): void {
    void this.ctx?.close();
    this.ctx = null;
  }
}
