import uPlot from './vendor/uplot/uPlot.esm.js';
import { api } from './api.js';
import { run } from './ui.js';
import { clear, h, money, when } from './dom.js';

const PERIOD_NAMES = { today: 'Today', last_7_days: 'Last 7 days', last_30_days: 'Last 30 days' };
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
const checkoutLink = (id) => h('a', { href: `/merchant/payments?checkout=${encodeURIComponent(id)}` }, 'Open the payment');

/** One period's money: gross, refunds and net, each a line a merchant reads at a glance. */
function period(p, currency) {
  const figure = (name, cents, label) => h('dd', { 'data-figure': name, class: name }, money(cents, currency), label ? h('small', { class: 'muted' }, ` · ${label}`) : null);
  return h('section', { class: 'card period', 'data-period': p.period },
    h('h3', {}, PERIOD_NAMES[p.period] || p.period),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Gross'), figure('gross', p.gross_cents, plural(p.payments, 'payment')),
      h('dt', {}, 'Refunds'), figure('refunds', p.refunds_cents, plural(p.refunds, 'refund')),
      h('dt', {}, 'Net'), figure('net', p.net_cents),
    ),
  );
}

/** The last 30 days' gross and refunds per day, drawn by uPlot at the width of its card (redrawn when the window changes). */
function volumeChart(chart, currency) {
  const box = h('div', { class: 'card chart', id: 'volume-chart', role: 'img', 'aria-label': `Gross and refunds per day, ${chart.days[0]} to ${chart.days[chart.days.length - 1]}` });
  const seconds = chart.days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
  const dollars = (cents) => cents.map((c) => c / 100);
  const size = () => ({ width: Math.max(240, box.clientWidth - 28), height: 220 });
  const axisMoney = (u, values) => values.map((v) => money(Math.round(v * 100), currency));
  // Drawn once the card is in the page and has a width.
  box.draw = () => {
    const plot = new uPlot({
      ...size(),
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true } },
      axes: [{}, { values: axisMoney, size: 70 }],
      series: [
        { label: 'Day' },
        { label: 'Gross', stroke: '#2757d6', fill: 'rgba(39, 87, 214, 0.12)', width: 2, value: (u, v) => (v === null ? '—' : money(Math.round(v * 100), currency)) },
        { label: 'Refunds', stroke: '#b3261e', width: 2, value: (u, v) => (v === null ? '—' : money(Math.round(v * 100), currency)) },
      ],
    }, [seconds, dollars(chart.gross_cents), dollars(chart.refunds_cents)], box);
    addEventListener('resize', () => plot.setSize(size()));
  };
  return box;
}

function openReviews(reviews, currency) {
  return h('section', { class: 'card', id: 'open-reviews' },
    h('h3', {}, 'Open reviews'),
    reviews.count
      ? h('p', {}, h('a', { href: '/merchant/reviews' }, `${plural(reviews.count, 'withdrawal')} await${reviews.count === 1 ? 's' : ''} a decision`), ` (${money(reviews.amount_cents, currency)}), the oldest since ${when(reviews.oldest_at)}.`)
      : h('p', { class: 'muted' }, 'No withdrawal awaits a decision.'),
  );
}

/** The receiver's answer to the last attempt: its status, or the error when nothing answered, and what it said. */
function receiverAnswer(last) {
  const status = last.http_status === null ? last.error : `HTTP ${last.http_status}`;
  return [`last ${when(last.at)}: `, h('strong', {}, status), last.response_excerpt ? [' · ', h('code', { class: 'answer' }, last.response_excerpt)] : null];
}

function failedDelivery(d) {
  const last = d.last_attempt;
  return h('li', { class: 'card compact', 'data-failed-event': d.event_id },
    h('div', { class: 'row spread' }, h('strong', {}, d.type), h('span', { class: 'badge failed' }, 'failed')),
    h('p', {}, plural(d.attempts, 'attempt'), last ? [' · ', receiverAnswer(last)] : null),
    last && last.url ? h('p', { class: 'muted' }, h('small', {}, `To ${last.url}`)) : null,
    h('p', { class: 'muted' },
      h('a', { href: `/merchant/developers?event=${encodeURIComponent(d.event_id)}` }, 'See the event'),
      d.checkout_id ? [' · ', checkoutLink(d.checkout_id), ' ', h('code', { class: 'id' }, d.checkout_id)] : null,
    ),
  );
}

/** What to look at first: money for today, the week and the month, the volume chart, open reviews and failed deliveries. */
export async function homePage(root) {
  const home = await run(() => api.get('/home'));
  if (!home) return;
  const chart = volumeChart(home.chart, home.currency);
  clear(root,
    h('h2', {}, 'Home'),
    h('p', { class: 'muted' }, 'Deposits taken and refunds made, by UTC day. Net is gross less refunds.'),
    h('div', { class: 'periods' }, home.periods.map((p) => period(p, home.currency))),
    h('h3', {}, 'Volume, last 30 days'),
    chart,
    h('div', { class: 'periods' },
      openReviews(home.open_reviews, home.currency),
      h('section', { class: 'card', 'data-stat': 'withdrawals' }, h('h3', {}, 'Withdrawals today'), h('p', {}, money(home.withdrawals.amount_cents, home.currency), h('small', { class: 'muted' }, ` · ${plural(home.withdrawals.count, 'payout')}`))),
    ),
    h('h3', {}, 'Failed webhook deliveries'),
    home.failed_deliveries.length
      ? h('ul', { class: 'plain list' }, home.failed_deliveries.map(failedDelivery))
      : h('p', { class: 'muted' }, 'No failed deliveries. Events your endpoint refused after every attempt appear here.'),
  );
  chart.draw();
}
