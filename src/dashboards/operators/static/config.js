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
  nav: [
    { page: 'reviews', label: 'Reviews' },
    { page: 'merchants', label: 'Merchants' },
    { page: 'checkouts', label: 'Checkouts' },
    { page: 'events', label: 'Events' },
    { page: 'customers', label: 'Customers' },
    { page: 'operators', label: 'Operators' },
  ],
};
