/**
 * The rule both engines follow when a publisher sends its first packet: it becomes the station's
 * publisher, and the one it replaces goes, with older attempts still waiting (a client that retried),
 * which lose to the one that got through. Listeners stay.
 */
export interface PublisherSlots<P> {
  publisher?: P | null;
  readonly pending: Set<P>;
}

/** Makes `pub` the station's publisher; returns the publishers it replaced, for the caller to close. */
export function takeOverPublisher<P>(st: PublisherSlots<P>, pub: P): P[] {
  const replaced: P[] = [];
  if (st.publisher) replaced.push(st.publisher);
  for (const p of st.pending) {
    if (p === pub) break;
    replaced.push(p);
  }
  st.pending.delete(pub);
  st.publisher = pub;
  return replaced;
}
