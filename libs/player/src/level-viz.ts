/**
 * A live level animation drawn from the audio itself: an AnalyserNode on the stream the player
 * plays (WebRTC), bars on one canvas at ~30 frames a second. Nothing runs when the listener asks
 * for reduced motion, when the page is hidden, or when there is no stream (the HTTP fallback).
 */
const BARS = 24;

export function prefersReducedMotion(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

export class LevelViz {
  private ctx: AudioContext | null = null;
  private analyser: AnalyserNode | null = null;
  private stream: MediaStream | null = null;
  private frame = 0;
  private tick = 0;
  private bins: Uint8Array<ArrayBuffer> | null = null;

  constructor(private readonly canvas: HTMLCanvasElement) {}

  /** Follows what plays: `stream` while live over WebRTC, `null` otherwise. */
  sync(stream: MediaStream | null): void {
    if (stream === this.stream) return;
    this.stop();
    if (!stream || prefersReducedMotion() || typeof AudioContext !== 'function') return;
    if (stream.getAudioTracks().length === 0) return;
    try {
      const ctx = new AudioContext();
      const analyser = ctx.createAnalyser();
      analyser.fftSize = 128;
      analyser.smoothingTimeConstant = 0.75;
      ctx.createMediaStreamSource(stream).connect(analyser);
      this.ctx = ctx;
      this.analyser = analyser;
      this.stream = stream;
      this.bins = new Uint8Array(analyser.frequencyBinCount);
      void ctx.resume().catch(() => undefined);
      this.frame = requestAnimationFrame(this.draw);
    } catch {
      this.stop();
    }
  }

  stop(): void {
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    void this.ctx?.close().catch(() => undefined);
    this.ctx = null;
    this.analyser = null;
    this.stream = null;
    this.canvas.removeAttribute('data-active');
    this.canvas.getContext('2d')?.clearRect(0, 0, this.canvas.width, this.canvas.height);
  }

  private readonly draw = () => {
    this.frame = requestAnimationFrame(this.draw);
    // Every other frame is plenty for a level, and half the work.
    if (++this.tick % 2 || document.hidden || !this.analyser || !this.bins) return;
    const c = this.canvas;
    const w = Math.round(c.clientWidth * devicePixelRatio);
    const h = Math.round(c.clientHeight * devicePixelRatio);
    if (!w || !h) return;
    if (c.width !== w || c.height !== h) {
      c.width = w;
      c.height = h;
    }
    const g = c.getContext('2d');
    if (!g) return;
    this.analyser.getByteFrequencyData(this.bins);
    g.clearRect(0, 0, w, h);
    g.fillStyle = getComputedStyle(c).color;
    const gap = Math.max(1, Math.round(w / BARS / 4));
    const bw = (w - gap * (BARS - 1)) / BARS;
    // The lower two thirds of the spectrum carry music; spread them over the bars.
    const usable = Math.floor(this.bins.length * 0.66);
    let energy = 0;
    for (let i = 0; i < BARS; i++) {
      const v = this.bins[Math.floor((i / BARS) * usable)]! / 255;
      energy += v;
      const bh = Math.max(2 * devicePixelRatio, v * h);
      g.fillRect(i * (bw + gap), h - bh, bw, bh);
    }
    if (energy > 0.5 && !c.hasAttribute('data-active')) c.setAttribute('data-active', '');
  };
}
