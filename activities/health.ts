import type { ActivityDeps } from './deps';
import { pingDatabase } from '../src/storage/db';

export function createHealthActivities({ db }: ActivityDeps) {
  return {
    async checkDatabase(): Promise<void> {
      await pingDatabase(db);
    },
  };
}
