import { loadConfigOrExit } from '../runtime';
import { createDb, ensureDatabase, migrateLatest } from '../storage/db';

/** Creates the database if needed and applies every migration; run before the API and worker start. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  await ensureDatabase(config.databaseUrl);
  const db = createDb(config.databaseUrl);
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
