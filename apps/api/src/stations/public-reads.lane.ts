import { StationId } from '@radiobroadcaster/contracts';
import type { LaneRoute } from '../common/fast-lane.js';
import { docReply, PUBLIC_POLL_CACHE_CONTROL } from '../common/json-doc.js';
import type { StationReadModel } from './station-read-model.js';

const CACHE = PUBLIC_POLL_CACHE_CONTROL;

/**
 * The public station reads on the fast lane: the same answers as `StationsController` and
 * `UserStationsController`, which keep serving every request the lane leaves to Nest (an
 * invalid id gets Nest's 400).
 */
export function publicReadRoutes(reads: StationReadModel): LaneRoute[] {
  return [
    {
      path: '/api/stations/discover',
      publicCors: true,
      handler: async (req) => docReply(req, await reads.discoverDoc(), CACHE),
    },
    {
      path: '/api/stations/:id',
      publicCors: true,
      accept: ([id]) => StationId.safeParse(id).success,
      handler: (req, [id]) => {
        const cached = reads.cachedStationDoc(id!);
        if (cached) return docReply(req, cached, CACHE);
        return reads.stationDoc(id!).then((doc) => docReply(req, doc, CACHE));
      },
    },
    {
      path: '/api/users/:username/stations',
      publicCors: true,
      // a signed-in caller may be the owner, who sees unlisted and private stations too: Nest
      accept: (_params, req) =>
        !req.headers.cookie?.includes('rb_session=') && !req.headers.authorization,
      handler: async (req, [username]) =>
        docReply(req, await reads.userStationsDoc(username!), CACHE),
    },
    {
      path: '/api/users/:username/stations/:slug',
      publicCors: true,
      handler: async (req, [username, slug]) =>
        docReply(req, await reads.stationBySlugDoc(username!, slug!), CACHE),
    },
  ];
}
