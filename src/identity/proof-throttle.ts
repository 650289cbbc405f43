import { ValidationError } from '../http/errors';
import type { SignInThrottle } from './sign-in-throttle';

/** Runs a check of something a person must prove (an authenticator code, a recovery code) and answers its result. */
export type ProofGuard = <T>(prove: () => Promise<T>) => Promise<T>;

/**
 * Guesses of a code outside the sign-in (a reset link's, a re-enrolment's) count as failed
 * sign-ins of the person's account and the address, so six digits cannot be tried a million times
 * through another door.
 */
export function throttledProof(throttle: SignInThrottle, email: string, clientAddress: string): ProofGuard {
  return async (prove) => {
    const keys = throttle.keysFor(email, clientAddress);
    await throttle.admit(keys);
    try {
      return await prove();
    } catch (error) {
      if (error instanceof ValidationError) throw await throttle.fail(keys, error);
      throw error;
    }
  };
}
