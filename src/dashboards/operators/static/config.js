// The operator dashboard's settings for the kit (its API client, sign-in page and app shell).
export const config = {
  mount: '/dashboard',
  home: 'reviews',
  apiBase: '/admin/v1',
  csrfHeader: 'X-Dashboard-CSRF',
  csrfField: 'csrf',
  session: '/dashboard/session',
  signIn: '/dashboard/session',
  signOut: '/dashboard/session',
  signInPage: '/dashboard/login',
  afterSignIn: '/dashboard/reviews',
  // The operator's people reset their password through the same API as the merchant's (one account machinery).
  passwordResets: '/merchant/v1/password-resets',
  authenticator: { start: '/dashboard/session/totp', confirm: '/dashboard/session/totp/confirm', recoveryCodes: '/dashboard/session/recovery-codes' },
  nav: [
    { page: 'reviews', label: 'Reviews' },
    { page: 'merchants', label: 'Merchants' },
    { page: 'checkouts', label: 'Checkouts' },
    { page: 'events', label: 'Events' },
    { page: 'customers', label: 'Customers' },
    { page: 'operators', label: 'Operators', needs: 'operators' },
    { page: 'audit', label: 'Audit log', needs: 'operators' },
    { page: 'security', label: 'Security' },
  ],
};
