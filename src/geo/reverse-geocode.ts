import { US_TERRITORY_ALPHA3, alpha2For } from './codes';
import { buildGeoData, type GeoData, type GeoDataStats } from './datasets';
import { countryKey, usStateKey } from './place-index';

export interface GeoPlace {
  /** ISO 3166-1 alpha-3, e.g. "USA", "CAN", "MEX". */
  country: string;
  /** USA: USPS state code (incl. "DC"). US territories: their USPS code ("PR"). Elsewhere: GeoNames admin1 name, else the country code. */
  region: string;
  /** Nearest populated place (GeoNames, city sections excluded) in the same country/state within 50 km, else null. */
  municipality: string | null;
}

/** Radius for `municipality`. */
const MUNICIPALITY_MAX_KM = 50;
/** Radius for borrowing a region from the nearest place: wide enough for sparse areas (Outback, tundra). */
const REGION_MAX_KM = 300;
/**
 * A point outside every outline but this close to one belongs to it: the 12 nautical mile
 * territorial sea is part of a state's territory, and 1:10m coastlines miss harbours,
 * fjords and small islands (Tromsø city centre lies outside Natural Earth's Norway).
 */
const TERRITORIAL_SEA_KM = 22.2;

const TERRITORY_USPS: ReadonlyMap<string, string> = new Map(
  Object.entries(US_TERRITORY_ALPHA3).map(([usps, alpha3]) => [alpha3, usps]),
);

let data: GeoData | null = null;

/** Loaded on first use: building the indexes takes about a second and ~100 MB that most processes never need. */
function geoData(): GeoData {
  if (data === null) data = buildGeoData();
  return data;
}

/** Load the datasets now (e.g. at service start, to keep the first request fast) and report load figures. */
export function loadGeoData(): GeoDataStats {
  return geoData().stats;
}

/** Number.isFinite also rejects non-numbers, which untyped callers (parsed JSON) may pass. */
function validCoordinates(latitude: number, longitude: number): boolean {
  return Number.isFinite(latitude) && Number.isFinite(longitude) && Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180;
}

/**
 * Offline reverse geocoding to country, region and municipality.
 * Returns null for coordinates out of range and for points in no country (open sea).
 */
export function reverseGeocode(latitude: number, longitude: number): GeoPlace | null {
  if (!validCoordinates(latitude, longitude)) return null;
  const d = geoData();
  const lon = longitude;
  const lat = latitude;

  const countryOwner = d.countries.find(lon, lat);
  let country: string | null = countryOwner >= 0 ? d.countryCodes[countryOwner]! : null;

  // Natural Earth decides the country; the Census layer only names the state. It is also
  // asked when Natural Earth finds no land, because the two coastlines differ slightly.
  let usps: string | null = null;
  if (country === null || country === 'USA' || TERRITORY_USPS.has(country)) {
    const stateOwner = d.states.find(lon, lat);
    if (stateOwner >= 0) {
      usps = d.stateCodes[stateOwner]!;
      if (country === null) country = US_TERRITORY_ALPHA3[usps] ?? 'USA';
    }
  }
  if (country === null) {
    const nearOwner = d.countries.nearestWithin(lon, lat, TERRITORIAL_SEA_KM);
    if (nearOwner < 0) return null;
    country = d.countryCodes[nearOwner]!;
  }

  const alpha2 = alpha2For(country);
  const { places } = d;

  if (country === 'USA') {
    if (usps === null) {
      // In Natural Earth's USA but outside the simplified Census outlines (coasts, border
      // rivers, territorial sea): take the nearest state outline, else the nearest US place's state.
      const nearState = d.states.nearestWithin(lon, lat, TERRITORIAL_SEA_KM);
      if (nearState >= 0) usps = d.stateCodes[nearState]!;
      else usps = places.admins[places.nearest(countryKey('US'), lon, lat, REGION_MAX_KM)?.id ?? -1] ?? null;
    }
    const state = usps;
    const near = state ? places.nearest(usStateKey(state), lon, lat, MUNICIPALITY_MAX_KM) : null;
    return { country, region: state ?? country, municipality: near ? places.names[near.id]! : null };
  }

  const near = alpha2 ? places.nearest(countryKey(alpha2), lon, lat, REGION_MAX_KM) : null;
  const municipality = near && near.distanceKm <= MUNICIPALITY_MAX_KM ? places.names[near.id]! : null;
  const territory = TERRITORY_USPS.get(country);
  if (territory !== undefined) return { country, region: territory, municipality };
  const adminName = near ? d.admin1Names.get(`${alpha2}.${places.admins[near.id]}`) : undefined;
  return { country, region: adminName ?? country, municipality };
}
