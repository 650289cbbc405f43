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
    // Counted before the check, like a sign-in: a wrong code keeps its place as a failure.
    await throttle.reserve(keys);
    try {
      const proven = await prove();
      await throttle.release(keys);
      return proven;
    } catch (error) {
      if (!(error instanceof ValidationError)) await throttle.release(keys);
      throw error;
    }
  };
}
