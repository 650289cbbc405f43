import type { Knex } from 'knex';

/**
 * The reconciler (src/charges/reconciler.ts) settles charges an interrupted attempt left behind.
 * - `charges.attempt_seen_at`: when an attempt last said it was working on an existing charge (a
 *   retried or resumed attempt renews it before calling the processor); with `updated_at` and
 *   `hold_sent_at` it dates the charge's last sign of an owner.
 * - `charges.reconcile_claimed_at`: the reconciler's claim. A charge claimed less than a lease ago is
 *   the reconciler's alone: an attempt that resumes meanwhile leaves the processor alone.
 * - A partial index over the charges still in progress, the only ones the reconciler scans.
 * - `sandbox_processor_calls`: the sandbox processor's own record of the charges and payouts it
 *   was sent, by idempotency key (the charge id), so asking it what happened is truthful after a crash.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('charges', (t) => {
    t.timestamp('attempt_seen_at', { useTz: true });
    t.timestamp('reconcile_claimed_at', { useTz: true });
  });
  await knex.raw(`CREATE INDEX charges_in_progress_updated_at_index ON charges (updated_at) WHERE status IN ('created', 'pending', 'held')`);
  await knex.schema.createTable('sandbox_processor_calls', (t) => {
    t.text('processor').notNullable();
    t.text('idempotency_key').notNullable();
    t.text('operation').notNullable(); // charge | payout
    t.jsonb('outcome').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['processor', 'idempotency_key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_processor_calls');
  await knex.raw('DROP INDEX charges_in_progress_updated_at_index');
  await knex.schema.alterTable('charges', (t) => {
    t.dropColumn('attempt_seen_at');
    t.dropColumn('reconcile_claimed_at');
  });
}
