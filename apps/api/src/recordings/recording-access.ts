import type { StationVisibility } from '@radiobroadcaster/contracts';

/** Who is asking about a recording. */
export interface RecordingViewer {
  /** The station's owner. */
  owner: boolean;
  /** Holds a valid listening grant of the (private) station. */
  admitted: boolean;
}

/** A recording's effective visibility: its own setting, else its station's. */
export function recordingVisibility(
  recording: { visibility: StationVisibility | null },
  station: { visibility: StationVisibility },
): StationVisibility {
  return recording.visibility ?? station.visibility;
}

/**
 * THE rule for replays, recordings, the podcast feed and chat replays (one place, for every
 * caller): `playable` — the viewer may hear it and open its page; `listed` — it appears in
 * public lists and feeds. The owner sees all. A recording still on air is the owner's only.
 * `public`: listed and playable by anyone; `unlisted`: playable by anyone with its link, never
 * listed; `private`: only the owner and listeners admitted to the station (a private station's
 * listening grant), listed to them.
 */
export function recordingAccess(
  recording: { visibility: StationVisibility | null; status: string },
  station: { visibility: StationVisibility },
  viewer: RecordingViewer,
): { playable: boolean; listed: boolean } {
  if (viewer.owner) return { playable: true, listed: true };
  if (recording.status === 'recording') return { playable: false, listed: false };
  switch (recordingVisibility(recording, station)) {
    case 'public':
      return { playable: true, listed: true };
    case 'unlisted':
      return { playable: true, listed: false };
    case 'private':
      return { playable: viewer.admitted, listed: viewer.admitted };
  }
}
