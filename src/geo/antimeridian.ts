import { bboxClip } from '@turf/bbox-clip';
import type { Position } from 'geojson';

/**
 * world-atlas keeps its rings continuous on the sphere (it is made for d3-geo): a ring
 * that crosses ±180° jumps from 179.96 to -180, and Antarctica's outline winds once
 * around the pole. Planar point-in-polygon reads such a ring as a band around the whole
 * globe (Russia's would cover northern Canada). These helpers turn one spherical
 * polygon into planar polygons that stay within [-180, 180].
 */

const WORLD: [number, number, number, number] = [-180, -90, 180, 90];

function crossesAntimeridian(ring: Position[]): boolean {
  for (let i = 1; i < ring.length; i++) {
    if (Math.abs(ring[i]![0]! - ring[i - 1]![0]!) > 180) return true;
  }
  return false;
}

/** Removes the ±360° jumps so consecutive vertices are adjacent; the ring may then reach past ±180. */
function unwrap(ring: Position[]): Position[] {
  const out: Position[] = [];
  let offset = 0;
  for (let i = 0; i < ring.length; i++) {
    const x = ring[i]![0]!;
    const y = ring[i]![1]!;
    if (i > 0) {
      const step = x - ring[i - 1]![0]!;
      if (step > 180) offset -= 360;
      else if (step < -180) offset += 360;
    }
    out.push([x + offset, y]);
  }
  const first = out[0]!;
  const last = out[out.length - 1]!;
  if (Math.abs(last[0]! - first[0]!) > 180) {
    // The ring ends a full turn from where it began: it encloses a pole, so close it over that pole.
    const meanLat = out.reduce((s, p) => s + p[1]!, 0) / out.length;
    const pole = meanLat < 0 ? -90 : 90;
    out.push([last[0]!, pole], [first[0]!, pole], [first[0]!, first[1]!]);
  }
  return out;
}

function lonRange(ring: Position[]): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (const p of ring) {
    min = Math.min(min, p[0]!);
    max = Math.max(max, p[0]!);
  }
  return [min, max];
}

/** Planar pieces of a polygon (outer ring, then holes), each within [-180, 180]. */
export function toPlanarPolygons(rings: Position[][]): Position[][][] {
  if (!rings.some(crossesAntimeridian)) return [rings];
  const outer = unwrap(rings[0]!);
  const [minX, maxX] = lonRange(outer);
  const holes = rings.slice(1).map((ring) => {
    const hole = unwrap(ring);
    const [h0, h1] = lonRange(hole);
    // Move each hole by whole turns next to its outer ring.
    const turns = Math.round(((minX + maxX) / 2 - (h0 + h1) / 2) / 360);
    return turns === 0 ? hole : hole.map(([x, y]) => [x! + turns * 360, y!]);
  });
  const out: Position[][][] = [];
  for (const shift of [-360, 0, 360]) {
    if (maxX + shift <= -180 || minX + shift >= 180) continue;
    const shifted = [outer, ...holes].map((ring) => (shift === 0 ? ring : ring.map(([x, y]) => [x! + shift, y!])));
    const clipped = bboxClip({ type: 'Polygon', coordinates: shifted }, WORLD).geometry;
    if (clipped.type === 'Polygon' && clipped.coordinates.length > 0 && clipped.coordinates[0]!.length >= 4) {
      out.push(clipped.coordinates);
    }
  }
  return out;
}
