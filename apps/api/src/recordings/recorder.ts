import { type FileHandle, mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { OggOpusWriter, opusPacketSamples } from '@radiobroadcaster/audio';

const FLUSH_MS = 1000;

export type RecorderStop = { reason: 'ended' } | { reason: 'failed'; error: string };

/**
 * Writes one recording: Ogg/Opus pages from the station's packets, appended to the file every
 * second and synced to disk, so a crash loses at most the last couple of seconds. A write error
 * (a full disk) stops the recording, never the broadcast.
 */
export class Recorder {
  private readonly writer = new OggOpusWriter({ vendor: 'radio-broadcaster recorder' });
  private file: FileHandle | null = null;
  private pending: Buffer[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private samples = 0;
  private bytes = 0;
  private stopped: RecorderStop | null = null;

  constructor(
    readonly path: string,
    private readonly onFailure: (error: string) => void,
  ) {}

  async start(comments: Record<string, string>): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    this.file = await open(this.path, 'w');
    this.writer.setComments(comments);
    this.pending.push(this.writer.headers());
    await this.flush();
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
  }

  /** Seconds of audio written so far. */
  get durationSeconds(): number {
    return this.samples / 48000;
  }

  get sizeBytes(): number {
    return this.bytes;
  }

  get failed(): boolean {
    return this.stopped?.reason === 'failed';
  }

  push(payload: Buffer): void {
    if (this.stopped || payload.length === 0) return;
    const samples = opusPacketSamples(payload);
    if (samples === 0) return;
    this.samples += samples;
    this.pending.push(this.writer.page(payload, samples).bytes);
  }

  /** Writes the end-of-stream page and closes the file. */
  async stop(): Promise<RecorderStop> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (!this.stopped) {
      this.pending.push(this.writer.end());
      await this.flush();
      this.stopped ??= { reason: 'ended' };
    }
    await this.writing;
    await this.file?.close().catch(() => undefined);
    this.file = null;
    return this.stopped;
  }

  private flush(): Promise<void> {
    this.writing = this.writing.then(async () => {
      if (!this.file || this.pending.length === 0 || this.failed) return;
      const chunk = Buffer.concat(this.pending);
      this.pending = [];
      try {
        const { bytesWritten } = await this.file.write(chunk);
        this.bytes += bytesWritten;
        // A short write is the disk filling up (the next write would say ENOSPC).
        if (bytesWritten < chunk.length)
          throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
        await this.file.datasync();
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const error =
          code === 'ENOSPC' || code === 'EDQUOT'
            ? 'The disk is full: the recording stopped (the broadcast goes on)'
            : `Writing the recording failed (${code ?? (err as Error).message})`;
        this.stopped = { reason: 'failed', error };
        if (this.timer) clearInterval(this.timer);
        this.timer = null;
        this.onFailure(error);
      }
    });
    return this.writing;
  }
}
