import type { Knex } from 'knex';

/**
 * Each running worker writes its heartbeat here every few seconds: the API's readiness follows a
 * worker that stopped within seconds, where Temporal keeps listing its pollers for minutes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('worker_heartbeats', (t) => {
    t.text('id').primary();
    t.text('task_queue').notNullable();
    t.timestamp('beat_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['task_queue', 'beat_at'], 'worker_heartbeats_queue_beat_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('worker_heartbeats');
}
