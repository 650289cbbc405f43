import type { Db } from '../../src/storage/db';

/** The floor's table: one row per attempt, created by the floor server at start. */
export const FLOOR_TABLE = 'bench_floor_attempts';

export function createFloorActivities(db: Db) {
  return {
    async insertFloorRow(attemptId: string): Promise<string> {
      const [row] = await db(FLOOR_TABLE).insert({ id: attemptId }).returning('id');
      return (row as { id: string }).id;
    },
  };
}
export type FloorActivities = ReturnType<typeof createFloorActivities>;
