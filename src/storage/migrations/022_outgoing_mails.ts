import type { Knex } from 'knex';

/**
 * The mail outbox: a mail is written in the transaction of what it announces (an invitation, a
 * reset link) and sent after the commit, then retried by the worker's sweep until it is sent, its
 * link expires or its attempts run out. The body carries a one-time link, so it is stored sealed
 * and erased once sent.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('outgoing_mails', (t) => {
    t.text('id').primary();
    t.text('recipient').notNullable();
    t.text('subject').notNullable();
    t.text('body_sealed');
    t.integer('attempts').notNullable().defaultTo(0);
    // Due for its next attempt (or leased by a sender until then).
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Past this the link in the mail no longer works, so sending it is pointless.
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('sent_at', { useTz: true });
    t.timestamp('abandoned_at', { useTz: true });
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX outgoing_mails_due_index ON outgoing_mails (next_attempt_at) WHERE sent_at IS NULL AND abandoned_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('outgoing_mails');
}
