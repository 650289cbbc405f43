// The subscription admin routes in the OpenAPI document, beside the rest of the admin API.
import { z } from 'zod';
import { SubscriptionObject } from '../checkouts/schemas';
import { ChargeResponse } from '../charges/schemas';
import { ADMIN_PAGING, ADMIN_TOKEN_THROTTLED, AdminAuth, DashboardSession, operation, page, pathId, TAGS, UNKNOWN_CURSOR } from '../http/openapi-operation';
import { listPaged } from '../admin/openapi';
import { AdvanceClockBody, CancelBody, CustomerClockBody, PaymentMethodBody, SubscriptionListQuery } from './schemas';

const security = [{ [AdminAuth.name]: [] }, { [DashboardSession.name]: [] }];
const errors = { 401: 'Missing or wrong admin token (or dashboard session / CSRF header).', 429: ADMIN_TOKEN_THROTTLED, 404: 'No such subscription.', 422: 'Refused: see error and hint.' };
const tag = TAGS.admin;
const subscriptionParams = pathId('sub_7Gk2kQ8sLm3Xa7Pc1Rt5VbNw');
const AdminSubscription = SubscriptionObject.extend({ merchant_id: z.string(), customer_id: z.string(), checkout_id: z.string() }).passthrough();

operation({ method: 'get', path: '/admin/v1/subscriptions', id: 'adminListSubscriptions', tag, security, summary: 'Subscriptions by merchant, customer and status, newest first',
  description: ADMIN_PAGING, query: listPaged(SubscriptionListQuery), responses: { 200: ['Subscriptions', page(AdminSubscription)] }, errors: { ...errors, 404: UNKNOWN_CURSOR } });
operation({ method: 'get', path: '/admin/v1/subscriptions/{id}', id: 'adminGetSubscription', tag, security, summary: 'A subscription with its charges, one per period', params: subscriptionParams, responses: { 200: ['The subscription', AdminSubscription.extend({ charges: z.array(ChargeResponse) })] }, errors });
operation({ method: 'post', path: '/admin/v1/subscriptions/{id}/cancel', id: 'adminCancelSubscription', tag, security, summary: 'Cancel now, or at the end of the current period', params: subscriptionParams, body: CancelBody, responses: { 200: ['The subscription', AdminSubscription] }, errors });
operation({ method: 'post', path: '/admin/v1/subscriptions/{id}/payment_method', id: 'adminChangeSubscriptionPaymentMethod', tag, security, summary: "Charge renewals to another of the customer's saved methods", params: subscriptionParams, body: PaymentMethodBody, responses: { 200: ['The subscription', AdminSubscription] }, errors });
operation({ method: 'post', path: '/admin/v1/subscriptions/{id}/test_clock/advance', id: 'adminAdvanceTestClock', tag, security, summary: "Sandbox: move a subscription's test clock forward (renewals due by then run)", params: subscriptionParams, body: AdvanceClockBody, responses: { 200: ['The subscription', AdminSubscription] }, errors });
operation({ method: 'post', path: '/admin/v1/customers/{id}/test_clock', id: 'adminSetCustomerTestClock', tag, security, summary: "Sandbox: the clock new subscriptions of this customer start from", params: pathId('cus_9Jd2kQ8sLm3Xa7Pc1Rt5VbNw'), body: CustomerClockBody, responses: { 200: ['The customer clock', z.object({ customer_id: z.string(), now: z.string() }).passthrough()] }, errors });
