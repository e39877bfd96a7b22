import { PRODUCT_NAME } from './constants.js';
import type { Station } from './station.js';

/** Every page title ends with the product's name. */
export const TITLE_SUFFIX = ` | ${PRODUCT_NAME}`;

export const withTitleSuffix = (title: string): string => `${title}${TITLE_SUFFIX}`;

/** What a station page says about a station that has no description of its own. */
export const STATION_FALLBACK_DESCRIPTION = 'Live radio streaming.';

type Named = Pick<Station, 'name'> & { broadcaster: Pick<Station['broadcaster'], 'username'> };

/** '{station name} by @{username}' plus the product suffix: the station, profile and embed pages. */
export function stationPageTitle(station: Named): string {
  return withTitleSuffix(`${station.name} by @${station.broadcaster.username}`);
}

/** The station's description, or the fallback when it is empty or only spaces. */
export function stationPageDescription(station: Pick<Station, 'description'>): string {
  return station.description.trim() || STATION_FALLBACK_DESCRIPTION;
}
