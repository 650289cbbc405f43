// The merchant dashboard's settings for the kit (its API client, sign-in page and app shell).
export const config = {
  mount: '/merchant',
  home: 'home',
  apiBase: '/merchant/v1',
  csrfHeader: 'X-CSRF-Token',
  csrfField: 'csrf_token',
  session: '/merchant/v1/me',
  signIn: '/merchant/v1/session',
  signOut: '/merchant/v1/session',
  signInPage: '/merchant/login',
  afterSignIn: '/merchant',
  passwordResets: '/merchant/v1/password-resets',
  nav: [
    { page: 'home', label: 'Home' },
    { page: 'payments', label: 'Payments' },
    { page: 'customers', label: 'Customers' },
    { page: 'reviews', label: 'Reviews' },
    { page: 'developers', label: 'Developers' },
    { page: 'team', label: 'Team', needs: 'team' },
    { page: 'audit', label: 'Audit log', needs: 'audit_log' },
  ],
};
