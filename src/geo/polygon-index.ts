import { bboxClip } from '@turf/bbox-clip';
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { pointToPolygonDistance } from '@turf/point-to-polygon-distance';
import type { Polygon, Position } from 'geojson';

/**
 * Point-in-polygon index over many (multi)polygons, each tagged with an integer owner.
 *
 * Country outlines at 1:10m have up to ~12k vertices per polygon, so testing whole
 * polygons would cost tens of microseconds per lookup. Instead every polygon is cut
 * (with turf's bbox clip) along a fixed grid until each piece is small, and pieces
 * are bucketed by grid cell: a lookup tests only the few small pieces of one cell.
 */

/** Grid cell edge in degrees: small enough that a cell holds few pieces, large enough to keep the bucket table small. */
const CELL = 0.5;
/** A piece with at most this many vertices is not cut further even when it spans several cells. */
const LEAF_VERTICES = 48;
/**
 * Grid lines are shifted off round coordinates. Clipping leaves zero-width "bridges"
 * along cut lines (Sutherland-Hodgman), and a query lying exactly on a cut line could
 * hit one; input given with <= 7 decimals can never lie exactly on a shifted line.
 */
const JITTER = 1.23456789e-8;
const ORIGIN_X = -180 - CELL + JITTER;
const ORIGIN_Y = -90 - CELL + JITTER;
const COLS = Math.ceil(360 / CELL) + 3;
const ROWS = Math.ceil(180 / CELL) + 3;
const KM_PER_DEGREE_LAT = 111.2;

export interface PolygonIndexStats {
  pieces: number;
  vertices: number;
  buildMs: number;
}

function cellCol(x: number): number {
  return Math.floor((x - ORIGIN_X) / CELL);
}
function cellRow(y: number): number {
  return Math.floor((y - ORIGIN_Y) / CELL);
}
function lineX(col: number): number {
  return ORIGIN_X + col * CELL;
}
function lineY(row: number): number {
  return ORIGIN_Y + row * CELL;
}

type BBox = [number, number, number, number];

function ringBBox(ring: Position[]): BBox {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const p of ring) {
    const x = p[0]!;
    const y = p[1]!;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  return [minX, minY, maxX, maxY];
}

function vertexCount(rings: Position[][]): number {
  let n = 0;
  for (const r of rings) n += r.length;
  return n;
}

export class PolygonIndex {
  private readonly geoms: Polygon[] = [];
  private readonly owners: number[] = [];
  private readonly boxes: number[] = [];
  /** (cell, piece) pairs collected while building, turned into CSR arrays by finish(). */
  private pairCells: number[] = [];
  private pairPieces: number[] = [];
  private cellStart: Int32Array = new Int32Array(0);
  private cellPieces: Int32Array = new Int32Array(0);
  private vertices = 0;
  private readonly started = Date.now();
  private buildMs = 0;

  /** Adds one polygon (outer ring first, then holes). */
  addPolygon(rings: Position[][], owner: number): void {
    const outer = rings[0];
    if (!outer || outer.length < 4) return;
    const bb = ringBBox(outer);
    this.split(rings, bb, owner, cellCol(bb[0]), cellCol(bb[2]), cellRow(bb[1]), cellRow(bb[3]));
  }

  /**
   * Cell ranges travel with the recursion instead of being recomputed from clipped
   * coordinates: a vertex on a cut line can round into the neighbouring cell, and the
   * range must shrink on every step for the recursion to end.
   */
  private split(rings: Position[][], bb: BBox, owner: number, c0: number, c1: number, r0: number, r1: number): void {
    if (vertexCount(rings) <= LEAF_VERTICES || (c0 === c1 && r0 === r1)) {
      this.addPiece(rings, bb, owner, c0, c1, r0, r1);
      return;
    }
    // Cut across the longer side on the grid line nearest its middle, so pieces align with cells.
    const polygon: Polygon = { type: 'Polygon', coordinates: rings };
    const alongX = c1 - c0 >= r1 - r0;
    const k = alongX ? (c0 + c1 + 1) >> 1 : (r0 + r1 + 1) >> 1;
    const cut = alongX ? lineX(k) : lineY(k);
    const halves: Array<{ box: BBox; c0: number; c1: number; r0: number; r1: number }> = alongX
      ? [
          { box: [bb[0], bb[1], cut, bb[3]], c0, c1: k - 1, r0, r1 },
          { box: [cut, bb[1], bb[2], bb[3]], c0: k, c1, r0, r1 },
        ]
      : [
          { box: [bb[0], bb[1], bb[2], cut], c0, c1, r0, r1: k - 1 },
          { box: [bb[0], cut, bb[2], bb[3]], c0, c1, r0: k, r1 },
        ];
    for (const h of halves) {
      const clipped = bboxClip(polygon, h.box).geometry;
      if (clipped.type !== 'Polygon') continue;
      const parts = clipped.coordinates;
      // bboxClip drops rings that vanish; a vanished outer ring means nothing of this polygon is here.
      if (parts.length === 0 || parts[0]!.length < 4) continue;
      const cb = ringBBox(parts[0]!);
      if (cb[0] >= cb[2] || cb[1] >= cb[3]) continue; // zero-area sliver along the cut
      const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));
      this.split(
        parts,
        cb,
        owner,
        clamp(cellCol(cb[0]), h.c0, h.c1),
        clamp(cellCol(cb[2]), h.c0, h.c1),
        clamp(cellRow(cb[1]), h.r0, h.r1),
        clamp(cellRow(cb[3]), h.r0, h.r1),
      );
    }
  }

  private addPiece(rings: Position[][], bb: BBox, owner: number, c0: number, c1: number, r0: number, r1: number): void {
    const id = this.geoms.length;
    this.geoms.push({ type: 'Polygon', coordinates: rings });
    this.owners.push(owner);
    this.boxes.push(bb[0], bb[1], bb[2], bb[3]);
    this.vertices += vertexCount(rings);
    for (let r = r0; r <= r1; r++) {
      for (let c = c0; c <= c1; c++) {
        this.pairCells.push(r * COLS + c);
        this.pairPieces.push(id);
      }
    }
  }

  /** Freezes the index into compact per-cell arrays; call once after all polygons are added. */
  finish(): PolygonIndexStats {
    const cells = COLS * ROWS;
    const start = new Int32Array(cells + 1);
    for (const cell of this.pairCells) start[cell + 1]!++;
    for (let i = 0; i < cells; i++) start[i + 1]! += start[i]!;
    const fill = start.slice(0, cells);
    const pieces = new Int32Array(this.pairPieces.length);
    for (let i = 0; i < this.pairCells.length; i++) {
      pieces[fill[this.pairCells[i]!]!++] = this.pairPieces[i]!;
    }
    this.cellStart = start;
    this.cellPieces = pieces;
    this.pairCells = [];
    this.pairPieces = [];
    this.buildMs = Date.now() - this.started;
    return this.stats();
  }

  stats(): PolygonIndexStats {
    return { pieces: this.geoms.length, vertices: this.vertices, buildMs: this.buildMs };
  }

  /** Owner of the first polygon containing the point (boundary counts as inside), or -1. */
  find(lon: number, lat: number): number {
    const col = cellCol(lon);
    const row = cellRow(lat);
    if (col < 0 || col >= COLS || row < 0 || row >= ROWS) return -1;
    const cell = row * COLS + col;
    const end = this.cellStart[cell + 1]!;
    const boxes = this.boxes;
    const point = [lon, lat];
    for (let i = this.cellStart[cell]!; i < end; i++) {
      const p = this.cellPieces[i]!;
      const b = p * 4;
      if (lon < boxes[b]! || lat < boxes[b + 1]! || lon > boxes[b + 2]! || lat > boxes[b + 3]!) continue;
      if (booleanPointInPolygon(point, this.geoms[p]!)) return this.owners[p]!;
    }
    return -1;
  }

  /**
   * Owner of the polygon nearest to the point within maxKm, or -1. Only meant
   * for points that find() placed in no polygon. Exact distances (turf) are costly, so
   * pieces are visited in order of a cheap bbox lower bound and the scan stops early.
   */
  nearestWithin(lon: number, lat: number, maxKm: number): number {
    const dLat = maxKm / KM_PER_DEGREE_LAT;
    // Widest longitude span of the search circle; near the poles it covers every meridian.
    const cosMin = Math.cos((Math.min(90, Math.abs(lat) + dLat) * Math.PI) / 180);
    const dLon = cosMin > dLat / 180 ? Math.min(180, dLat / cosMin) : 180;
    const r0 = Math.max(0, cellRow(lat - dLat));
    const r1 = Math.min(ROWS - 1, cellRow(lat + dLat));
    const kmPerDegLon = KM_PER_DEGREE_LAT * cosMin;
    const boxes = this.boxes;
    const seen = new Set<number>();
    const candidates: Array<{ piece: number; boundKm: number; queryLon: number }> = [];
    // Near ±180° the circle wraps: also search with the query moved a full turn (Fiji, Aleutians).
    const queryLons = [lon];
    if (lon - dLon < -180) queryLons.push(lon + 360);
    if (lon + dLon > 180) queryLons.push(lon - 360);
    for (const queryLon of queryLons) {
      const c0 = Math.max(0, cellCol(queryLon - dLon));
      const c1 = Math.min(COLS - 1, cellCol(queryLon + dLon));
      for (let r = r0; r <= r1; r++) {
        for (let c = c0; c <= c1; c++) {
          const cell = r * COLS + c;
          for (let i = this.cellStart[cell]!; i < this.cellStart[cell + 1]!; i++) {
            const p = this.cellPieces[i]!;
            if (seen.has(p)) continue;
            seen.add(p);
            const b = p * 4;
            const dx = Math.max(0, boxes[b]! - queryLon, queryLon - boxes[b + 2]!) * kmPerDegLon;
            const dy = Math.max(0, boxes[b + 1]! - lat, lat - boxes[b + 3]!) * KM_PER_DEGREE_LAT;
            const boundKm = Math.max(dx, dy);
            if (boundKm <= maxKm) candidates.push({ piece: p, boundKm, queryLon });
          }
        }
      }
    }
    candidates.sort((a, b) => a.boundKm - b.boundKm);
    let best = -1;
    let bestKm = maxKm;
    for (const { piece, boundKm, queryLon } of candidates) {
      if (boundKm > bestKm) break;
      // 'planar' (rhumb) is several times cheaper than geodesic and differs by metres at this range.
      const km = Math.abs(
        pointToPolygonDistance([queryLon, lat], this.geoms[piece]!, { units: 'kilometers', method: 'planar' }),
      );
      if (km <= bestKm) {
        bestKm = km;
        best = this.owners[piece]!;
      }
    }
    return best;
  }
}
