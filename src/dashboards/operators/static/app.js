import { start } from './shell.js';
import { reviewsPage } from './reviews.js';
import { merchantsPage } from './merchants.js';
import { checkoutsPage } from './checkouts.js';
import { eventsPage } from './events.js';
import { customersPage } from './customers.js';
import { operatorsPage } from './operators.js';

start({ reviews: reviewsPage, merchants: merchantsPage, checkouts: checkoutsPage, events: eventsPage, customers: customersPage, operators: operatorsPage });
