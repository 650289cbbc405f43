import type { ActivityDeps } from './deps';

export function createHealthActivities({ db }: ActivityDeps) {
  return {
    async checkDatabase(): Promise<void> {
      await db.raw('SELECT 1');
    },
  };
}
