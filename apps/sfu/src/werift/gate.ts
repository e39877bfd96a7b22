/** Lets `limit` holders in at once; the others wait in order. */
export class Gate {
  private held = 0;
  private readonly queue: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  /** Resolves with the function that frees the slot (calling it twice frees it once). */
  async enter(): Promise<() => void> {
    if (this.held >= this.limit) await new Promise<void>((r) => this.queue.push(r));
    else this.held++;
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      const next = this.queue.shift();
      if (next) next();
      else this.held--;
    };
  }
}
