import { start } from './shell.js';
import { may, rolesWith } from './roles.js';
import { reviewsPage } from './reviews.js';
import { merchantsPage } from './merchants.js';
import { checkoutsPage } from './checkouts.js';
import { eventsPage } from './events.js';
import { customersPage } from './customers.js';
import { operatorsPage } from './operators.js';
import { auditPage } from './audit.js';
import { securityPage } from './security.js';

start(
  { reviews: reviewsPage, merchants: merchantsPage, checkouts: checkoutsPage, events: eventsPage, customers: customersPage, operators: operatorsPage, audit: auditPage, security: securityPage },
  { allowed: (item, session) => !item.needs || may(session.user.role, item.needs), rolesWith },
);
