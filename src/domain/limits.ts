import { z } from 'zod';

/** The largest amount of one checkout or attempt, in cents (one million dollars). */
export const MAX_AMOUNT_CENTS = 100_000_000;

/** The longest free-text field (a name, an email, an address line, a description) the API takes. */
export const MAX_TEXT_LENGTH = 255;

export const EARLIEST_DATE_OF_BIRTH = '1900-01-01';

/**
 * A date of birth: a real calendar date from 1900 to today (UTC). Year 0000 and other dates
 * PostgreSQL cannot store, or no living person has, are a 422 rather than a database error.
 */
export const dateOfBirthSchema = z.iso
  .date()
  // ISO dates compare correctly as strings; "today" is the UTC date.
  .refine((d) => d >= EARLIEST_DATE_OF_BIRTH && d <= new Date().toISOString().slice(0, 10), {
    message: `must be between ${EARLIEST_DATE_OF_BIRTH} and today`,
  });
