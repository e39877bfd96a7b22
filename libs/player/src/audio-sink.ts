/**
 * Where received audio goes. The client hands it each new track; `start` rejects with a
 * `NotAllowedError` when the browser refuses to play without a user gesture.
 */
export interface AudioSink {
  /** Plays `track`, replacing the previous one. */
  start(track: MediaStreamTrack): Promise<void>;
  /** Called synchronously inside a user gesture so a later `start` is allowed (Safari, iOS). */
  unlock(): void;
  /** Stops output. */
  stop(): void;
}

/**
 * Plays through a real media element (so mobile browsers keep playing in the background). Across
 * reconnects the same MediaStream stays on the element and only its track is swapped, so a player
 * that is already playing never needs a new play() (which a background tab may not be granted).
 */
export function mediaElementSink(audio: HTMLMediaElement): AudioSink {
  let stream: MediaStream | null = null;
  return {
    async start(track) {
      const playing = stream !== null && audio.srcObject === stream && !audio.paused;
      if (playing && stream) {
        for (const old of stream.getAudioTracks()) if (old !== track) stream.removeTrack(old);
        if (!stream.getAudioTracks().includes(track)) stream.addTrack(track);
      } else {
        stream = new MediaStream([track]);
        audio.srcObject = stream;
      }
      await audio.play();
    },
    unlock() {
      if (audio.paused) audio.play().catch(() => undefined);
    },
    stop() {
      audio.pause();
      audio.srcObject = null;
      stream = null;
    },
  };
}

export function isAutoplayRefusal(err: unknown): boolean {
  return (err as { name?: unknown } | null)?.name === 'NotAllowedError';
}
