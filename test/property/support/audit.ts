import type { Db } from '../../../src/storage/db';

/**
 * The property suite must see every status a charge went through, not only the last one, to
 * check that each change is an edge of the state table. A trigger on the test database (never
 * installed by the service itself) logs each insert and status change with the wall clock.
 * It only observes: it writes to its own table and changes no row of the service.
 */
export async function installChargeAudit(db: Db): Promise<void> {
  await db.transaction(async (trx) => {
    // Several test files share one database and may install it at the same moment.
    await trx.raw('SELECT pg_advisory_xact_lock(8008)');
    await trx.raw(`CREATE TABLE IF NOT EXISTS property_charge_moves (
      seq bigserial PRIMARY KEY,
      charge_id text NOT NULL,
      from_status text,
      to_status text NOT NULL,
      at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`);
    await trx.raw(`CREATE OR REPLACE FUNCTION property_log_charge_move() RETURNS trigger AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO property_charge_moves (charge_id, from_status, to_status) VALUES (NEW.id, NULL, NEW.status);
        ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
          INSERT INTO property_charge_moves (charge_id, from_status, to_status) VALUES (NEW.id, OLD.status, NEW.status);
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await trx.raw('DROP TRIGGER IF EXISTS property_charge_moves_trg ON charges');
    await trx.raw('CREATE TRIGGER property_charge_moves_trg AFTER INSERT OR UPDATE OF status ON charges FOR EACH ROW EXECUTE FUNCTION property_log_charge_move()');
  });
}
