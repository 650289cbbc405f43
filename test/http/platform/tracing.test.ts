// One OpenTelemetry trace follows a wallet attempt from the API through the
// checkout workflow and its activities to the merchant's webhook, collected in memory.
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Service } from '../../support/harness';
import { useServiceWithReceiver } from '../../support/file-environment';
import type { WebhookReceiver } from '../../support/receiver';
import { attempt, CARD, createCheckout, openShop, waitFor } from '../../support/fixtures';
import { signatureFromHeaders, verifySignature } from '../../../src/webhooks/signature';

let service: Service;
let receiver: WebhookReceiver;
const exporter = new InMemorySpanExporter();
// Workflows stay cached here. A workflow's span ids come from its seeded random; a replay from
// scratch skips the update validators (and their ValidateUpdate spans), so spans re-created after
// a replay get other ids than the parents already sent in activity headers. The trace id holds.
useServiceWithReceiver((env) => ({ service, receiver } = env), { service: { spanExporter: exporter, maxCachedWorkflows: 100 } });

/** The span's ancestors, itself first, up to the trace's root (spans are linked by parent id). */
function ancestry(span: ReadableSpan, spans: ReadableSpan[]): ReadableSpan[] {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const chain = [span];
  for (let parent = byId.get(span.parentSpanId ?? ''); parent; parent = byId.get(parent.parentSpanId ?? '')) chain.push(parent);
  return chain;
}

describe('OpenTelemetry tracing', () => {
  it('links the wallet attempt, the update, the workflow, its activities and the checkout.succeeded webhook in one trace', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2500 });
    const res = await attempt(service, checkout, { payment_method: CARD() });
    expect(res.status).toBe(201);

    const delivered = await waitFor(() => receiver.forCheckout(checkout.id).find((r) => r.body.type === 'checkout.succeeded'), 20_000, 'checkout.succeeded');
    const webhookSpan = await waitFor(
      () => exporter.getFinishedSpans().find((s) => s.name === 'POST webhook checkout.succeeded' && s.attributes['payments.event.id'] === delivered.body.event_id),
      10_000,
      'the webhook span',
    );
    const traceId = webhookSpan.spanContext().traceId;
    // Workflow spans leave the sandbox through the worker's sink after their task completes.
    const chain = await waitFor(() => {
      const c = ancestry(webhookSpan, exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId));
      return c[c.length - 1].name === 'POST /wallet/v1/checkouts/:id/attempts' && c;
    }, 10_000, 'the whole chain up to the wallet request');
    const names = chain.map((s) => s.name).reverse();

    // Root first: the wallet request, the client's update (with the workflow's start), the workflow's handler, the (local)
    // activity that charged the card and recorded the event, then the event's first delivery
    // attempt, which that activity's worker makes right after the commit (a delivery workflow
    // only carries the retries of a first attempt that failed).
    const expected = [
      /^POST \/wallet\/v1\/checkouts\/:id\/attempts$/,
      /^(StartWorkflowUpdate|UpdateWithStartWorkflow):submitAttempt$/, // the first attempt starts the workflow with its update
      /^HandleUpdate:submitAttempt$/,
      /^StartActivity:/,
      /^RunActivity:/,
      /^POST webhook checkout\.succeeded$/,
    ];
    let at = 0;
    for (const name of names) if (at < expected.length && expected[at].test(name)) at += 1;
    expect({ names, matched: at }).toEqual({ names, matched: expected.length });

    const root = chain[chain.length - 1];
    expect(root.parentSpanId).toBeUndefined();
    expect(root.attributes).toMatchObject({ 'http.route': '/wallet/v1/checkouts/:id/attempts', 'http.response.status_code': 201 });
    expect(webhookSpan.attributes).toMatchObject({ 'http.response.status_code': 200, 'payments.webhook.outcome': 'accepted', 'payments.webhook.channel': 'outbox' });
    // The charge was made by an activity of the same trace (the attempt's one hop).
    expect(names.some((n) => /^RunActivity:(beginAttempt|chargeDeposit)$/.test(n))).toBe(true);

    // The POST carries the trace context; the signature covers the body only, and still verifies.
    expect(delivered.headers.traceparent).toBe(`00-${traceId}-${webhookSpan.spanContext().spanId}-01`);
    expect(() => verifySignature({ rawBody: delivered.rawBody, header: signatureFromHeaders(delivered.headers), secret: shop.merchant.webhook_signing_secret })).not.toThrow();
  }, 60_000);

  it('follows a refused first delivery into the delivery workflow that retries it, in the same trace', async () => {
    const shop = await openShop(service, { webhook_url: receiver.url });
    const checkout = await createCheckout(service, shop, { type: 'deposit', fixed_amount_cents: 2500 });
    let refused = 0;
    receiver.responder = (r) => (r.body?.type === 'checkout.succeeded' && r.body?.data?.id === checkout.id && refused++ === 0 ? { status: 500 } : { status: 200 });
    try {
      expect((await attempt(service, checkout, { payment_method: CARD() })).status).toBe(201);
      const accepted = await waitFor(() => exporter.getFinishedSpans().find((s) => s.name === 'POST webhook checkout.succeeded' && s.attributes['http.response.status_code'] === 200 && receiver.forCheckout(checkout.id).some((r) => r.body.event_id === s.attributes['payments.event.id'])), 30_000, 'the retried webhook span');
      const traceId = accepted.spanContext().traceId;
      const chain = await waitFor(() => {
        const c = ancestry(accepted, exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId));
        return c[c.length - 1].name === 'POST /wallet/v1/checkouts/:id/attempts' && c;
      }, 10_000, 'the chain up to the wallet request');
      const names = chain.map((s) => s.name).reverse();
      const expected = [/^POST \/wallet/, /^HandleUpdate:submitAttempt$/, /^RunActivity:/, /^StartWorkflow:deliverEventWorkflow$/, /^RunWorkflow:deliverEventWorkflow$/, /^RunActivity:deliverEvent$/, /^POST webhook checkout\.succeeded$/];
      let at = 0;
      for (const name of names) if (at < expected.length && expected[at].test(name)) at += 1;
      expect({ names, matched: at }).toEqual({ names, matched: expected.length });
      // The refused first attempt is in the same trace too.
      expect(exporter.getFinishedSpans().some((s) => s.spanContext().traceId === traceId && s.name === 'POST webhook checkout.succeeded' && s.attributes['http.response.status_code'] === 500)).toBe(true);
    } finally {
      receiver.responder = () => ({ status: 200 });
    }
  }, 60_000);

  it('continues a caller traceparent on the API server span', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await fetch(`${service.baseUrl}/healthz`, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    expect(res.status).toBe(200);
    const span = await waitFor(() => exporter.getFinishedSpans().find((s) => s.spanContext().traceId === traceId), 5_000, 'the server span');
    expect(span.name).toBe('GET /healthz');
    expect(span.parentSpanId).toBe('00f067aa0ba902b7');
  });
});
