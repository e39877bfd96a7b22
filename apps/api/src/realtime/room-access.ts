import type { Station } from '@radiobroadcaster/contracts';

/** Who asks to join a station's room: the signed-in user, if any, and the page's origin. */
export interface RoomCaller {
  userId: string | null;
  origin: string | null;
}

/**
 * Whether `caller` may join `station:{id}` (its pushes, presence and chat). Every station is
 * public for now; private stations (issue 28) decide here, in one place for every room feature.
 */
export async function mayJoinStationRoom(_station: Station, _caller: RoomCaller): Promise<boolean> {
  return true;
}
