// The merchant dashboard's pages in the OpenAPI document (its data routes: src/merchant-accounts/dashboard-openapi.ts).
import { z } from 'zod';
import { MerchantSessionAuth, operation, TAGS } from '../../http/openapi-operation';
import { MERCHANT_PAGES } from './routes';

const tag = TAGS.merchantDashboard;
const security = [{ [MerchantSessionAuth.name]: [] }];
const pageResponses: Record<number, [string]> = { 200: ['HTML'], 303: ['To /merchant/login'] };
operation({ method: 'get', path: '/merchant/login', id: 'merchantDashboardSignInPage', tag, summary: 'The merchant dashboard sign-in page (and the forgotten-password form)', responses: { 200: ['HTML'] }, htmlResponse: true });
operation({ method: 'get', path: '/merchant', id: 'merchantDashboardHome', tag, security, summary: 'The merchant dashboard (home); redirects to the sign-in page without a session', responses: pageResponses, htmlResponse: true });
operation({
  method: 'get', path: '/merchant/{page}', id: 'merchantDashboardPage', tag, security, summary: 'A merchant dashboard page; redirects to the sign-in page without a session',
  params: z.object({ page: z.enum(MERCHANT_PAGES).openapi({ description: 'The page.' }) }), responses: pageResponses, htmlResponse: true, errors: { 404: 'Not a page of the dashboard.' },
});
