import type { Knex } from 'knex';

/**
 * Delivery series and the delivery lease.
 *
 * - `events.delivery_attempts`: how many attempts of the event were recorded, so each new one is
 *   numbered on across every series of the event (one atomic increment, the row lock orders them).
 *   Existing events start from their highest recorded number.
 * - `event_delivery_attempts.series`: which delivery series an attempt belongs to. Series 1 is the
 *   event's own delivery; each resend or replay starts the next (`event_delivery_series`).
 * - `events.delivery_lease_until`: whoever sends an undispatched event (the committing process's
 *   first attempt, or the outbox sweeper) claims it until then, so the two never send together.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.integer('delivery_attempts').notNullable().defaultTo(0);
    t.timestamp('delivery_lease_until', { useTz: true });
  });
  await knex.raw(`
    UPDATE events SET delivery_attempts = recorded.n
    FROM (SELECT event_id, max(attempt) AS n FROM event_delivery_attempts GROUP BY event_id) AS recorded
    WHERE events.id = recorded.event_id`);
  await knex.schema.alterTable('event_delivery_attempts', (t) => {
    t.integer('series').notNullable().defaultTo(1);
  });
  await knex.schema.createTable('event_delivery_series', (t) => {
    t.string('event_id', 40).notNullable().references('events.id');
    // 2 and up: series 1 is the event's own delivery, started by its commit.
    t.integer('series').notNullable();
    t.string('reason', 8).notNullable().checkIn(['resend', 'replay']);
    t.timestamp('requested_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['event_id', 'series']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('event_delivery_series');
  await knex.schema.alterTable('event_delivery_attempts', (t) => t.dropColumn('series'));
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('delivery_lease_until');
    t.dropColumn('delivery_attempts');
  });
}
