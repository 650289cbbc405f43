import type { Db } from '../../../src/storage/db';

/**
 * The property suite must see every status a charge went through, not only the last one, to
 * check that each change is an edge of the state table. A trigger on the test database (never
 * installed by the service itself) logs each insert and status change with the wall clock.
 * It only observes: it writes to its own tables and changes no row of the service. A second
 * trigger logs each restriction of a customer and its lifting the same way.
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
    // Likewise every restriction and its lifting, to check that no charge is created in between.
    await trx.raw(`CREATE TABLE IF NOT EXISTS property_customer_restrictions (
      seq bigserial PRIMARY KEY,
      customer_id text NOT NULL,
      restricted boolean NOT NULL,
      at timestamptz NOT NULL DEFAULT clock_timestamp()
    )`);
    await trx.raw(`CREATE OR REPLACE FUNCTION property_log_restriction() RETURNS trigger AS $$
      BEGIN
        IF NEW.restriction_reason IS DISTINCT FROM OLD.restriction_reason THEN
          INSERT INTO property_customer_restrictions (customer_id, restricted) VALUES (NEW.id, NEW.restriction_reason IS NOT NULL);
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await trx.raw('DROP TRIGGER IF EXISTS property_customer_restrictions_trg ON customers');
    await trx.raw('CREATE TRIGGER property_customer_restrictions_trg AFTER UPDATE OF restriction_reason ON customers FOR EACH ROW EXECUTE FUNCTION property_log_restriction()');
  });
}
