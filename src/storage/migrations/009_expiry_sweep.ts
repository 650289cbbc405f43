import type { Knex } from 'knex';

/**
 * The expiry sweep (src/checkouts/expiry.ts) asks every half second for open checkouts past their
 * deadline: a partial index keeps that an index range over open checkouts only, however many
 * completed and expired ones the table holds.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX checkouts_open_expires_at_index ON checkouts (expires_at) WHERE state = 'open'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX checkouts_open_expires_at_index');
}
