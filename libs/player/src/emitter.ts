/** A minimal typed event emitter (no DOM EventTarget needed, so it runs anywhere). */
export class Emitter<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  /** Subscribes; returns the function that unsubscribes. */
  on<K extends keyof Events>(type: K, listener: (payload: Events[K]) => void): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return () => set.delete(listener as (payload: never) => void);
  }

  protected emit<K extends keyof Events>(type: K, payload: Events[K]): void {
    for (const listener of [...(this.listeners.get(type) ?? [])]) {
      try {
        (listener as (payload: Events[K]) => void)(payload);
      } catch (err) {
        // One bad listener must not break the player.
        setTimeout(() => {
          throw err;
        });
      }
    }
  }

  protected removeAllListeners(): void {
    this.listeners.clear();
  }
}
