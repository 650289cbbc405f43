// Shared by the operator's and the merchant's dashboards: an audit entry and a timeline entry as
// the sentence a merchant reads (people by email, amounts as money). Pure: strings in, strings out;
// the pages keep the raw ids beside the sentence for copying.
import { money, when } from './dom.js';

const words = (code) => String(code).replace(/_/g, ' ');
const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** A role as people read it: "operator_admin" -> "Operator admin", "owner" -> "Owner". */
export const roleName = (role) => capital(words(role));

/** A charge's transaction type in the dashboards' words: a credit is a deposit, a debit a withdrawal. */
export const paymentKind = (transactionType) => ({ credit: 'deposit', debit: 'withdrawal' })[transactionType] || words(transactionType);

/** How long an answer took, as people read it: "120 ms", "1.2 s". */
export const duration = (ms) => (ms === null || ms === undefined ? '?' : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

/** Who did it: the person's email, the operator's person, the operator's automation, or the invited person. */
export function actorText(entry) {
  if (entry.actor_kind === 'admin') return 'the operator (admin token)';
  if (entry.actor_kind === 'operator') return `${entry.actor_email} (operator)`;
  // A refused sign-in has no person yet: the email it tried.
  if (entry.actor_kind === 'anonymous') return entry.actor_email ? `someone trying ${entry.actor_email}` : 'someone';
  if (entry.actor_email) return entry.actor_email;
  // Before their account exists, an invited person acts as their invitation (the authenticator enrolment on its page).
  if (entry.actor_kind === 'invitation' || String(entry.actor).startsWith('inv_')) return 'the invited person';
  return 'a former member';
}

const SETTING_NAMES = {
  webhook_url: 'webhook URL',
  enabled_events: 'enabled events',
  review: 'review rule',
  checkout_flows: 'checkout flows',
  stripe: 'Stripe credentials',
  min_amount_cents: 'from',
  secret_key_last4: 'key ending',
  webhook_secret_set: 'webhook secret',
};
const settingName = (key) => SETTING_NAMES[key] || words(key.replace(/_cents$/, '').replace(/_seconds$/, ''));

/** A setting's value as text: money for cents, seconds as such, lists joined, nested settings as "name: value" pairs. */
export function valueText(key, value) {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (typeof value === 'number' && key.endsWith('_cents')) return money(value);
  if (typeof value === 'number' && key.endsWith('_seconds')) return `${value} s`;
  if (Array.isArray(value)) return value.length ? value.map((v) => valueText(key, v)).join(', ') : 'none';
  if (typeof value === 'object') {
    // A rule that can be switched off reads "off", or "on" followed by its terms.
    if (value.enabled === false) return 'off';
    const terms = Object.entries(value).filter(([k]) => k !== 'enabled').map(([k, v]) => `${settingName(k)} ${valueText(k, v)}`);
    return [value.enabled === true ? 'on' : null, ...terms].filter(Boolean).join(', ') || 'none';
  }
  return String(value);
}

/** One sentence per changed setting: "The webhook URL changed from https://a… to https://b…". */
export function settingChanges(action, details) {
  const d = details || {};
  let changes = d.changes;
  // Entries written before changes were recorded: the Developers page's own from/to, or the admin API's list of names.
  if (!changes && 'from' in d && action === 'webhook_url.changed') changes = { webhook_url: { from: d.from, to: d.to } };
  if (!changes && 'from' in d && action === 'enabled_events.changed') changes = { enabled_events: { from: d.from, to: d.to } };
  if (!changes && Array.isArray(d.settings)) return d.settings.map((key) => `${capital(settingName(key))} changed (values not recorded).`);
  const lines = Object.entries(changes || {}).map(([key, { from, to }]) => `The ${settingName(key)} changed from ${valueText(key, from)} to ${valueText(key, to)}.`);
  return lines.length ? lines : ['Saved with no change.'];
}

const SETTINGS_ACTIONS = { 'webhook_url.changed': 'the webhook URL', 'enabled_events.changed': 'the enabled events', 'settings.changed': 'the settings' };

function invitationSentence(who, action, d) {
  if (action === 'invitation.created') return `${who} invited ${d.email} as ${roleName(d.role)}${d.replaced && d.replaced.length ? ', replacing the open invitation' : ''}.`;
  if (action === 'invitation.accepted') return `${who} accepted the invitation and joined as ${roleName(d.role)}.`;
  return `${who} revoked the invitation of ${d.email} (${roleName(d.role)}).`;
}

function peopleSentence(who, action, d) {
  switch (action) {
    case 'member.role_changed':
    case 'operator.role_changed': return `${who} changed ${d.email}'s role from ${roleName(d.from)} to ${roleName(d.to)}.`;
    case 'member.removed': return `${who} removed ${d.email} (${roleName(d.role)}) from the team.`;
    case 'operator.removed': return `${who} removed the operator ${d.email} (${roleName(d.role)}).`;
    case 'session.created': return `${who} signed in${d.client_address ? ` from ${d.client_address}` : ''}.`;
    case 'session.ended': return `${who} signed out.`;
    case 'totp.enrolment_started': return `${who} started enrolling an authenticator app.`;
    case 'totp.enabled': return `${who} turned on an authenticator app.`;
    case 'password.reset_requested': return `${who} asked for a password reset link.`;
    case 'password.reset': return `${who} set a new password.`;
    case 'recovery_code.used': return `${who} signed in with a recovery code (${d.remaining ?? 'some'} left).`;
    case 'recovery_codes.regenerated': return `${who} made new recovery codes.`;
    case 'authenticator.recovery_started': return `${who} started an authenticator recovery${d.email ? ` for ${d.email}` : ''}.`;
    default: return null;
  }
}

function businessSentence(who, action, d, actor, address) {
  switch (action) {
    case 'api_key.issued': return `${who} issued an API key.`;
    case 'api_key.revoked': return `${who} revoked an API key.`;
    case 'signing_secret.revealed': return `${who} revealed the webhook signing secret${address ? ` from ${address}` : ''}.`;
    case 'signing_secret.rolled': return `${who} rolled the webhook signing secret${d.previous_expires_at ? `; the previous one signs until ${when(d.previous_expires_at)}` : ''}.`;
    case 'event.resent': return `${who} ${d.replay ? 'replayed' : 'resent'} an event (delivery series ${d.series}).`;
    case 'review.approved': return `${who} approved a review.`;
    case 'review.declined': return `${who} declined a review.`;
    case 'customer.unrestricted': return `${who} lifted a customer's restriction${d.reason_code ? ` (${words(d.reason_code)})` : ''}.`;
    case 'charge.refunded': return `Refunded ${money(d.amount_cents)} by ${actor}.`;
    case 'subscription.cancelled': return `${who} cancelled a subscription.`;
    case 'subscription.cancel_scheduled': return `${who} cancelled a subscription at the end of its period.`;
    case 'subscription.payment_method_changed': return `${who} moved a subscription to another saved payment method.`;
    default: return null;
  }
}

const SIGN_IN_FAILURES = { password: 'wrong email or password', totp_code: 'wrong authenticator code' };

/** A refused sign-in: the email tried and the address it came from (the actor is nobody yet). */
function signInSentence(action, d, address) {
  const from = address ? ` from ${address}` : '';
  if (action === 'sign_in.failed') return `Someone${from} failed to sign in as ${d.email} (${SIGN_IN_FAILURES[d.reason] || words(d.reason || 'refused')}).`;
  return `Sign-ins as ${d.email}${from} are paused for a while: too many failures (${words(d.limit || 'limit')}).`;
}

/** An audit entry as a sentence, with one more sentence per changed setting (`lines`). */
export function auditSentence(entry) {
  if (entry.action === 'sign_in.failed' || entry.action === 'sign_in.throttled') return { sentence: signInSentence(entry.action, entry.details || {}, entry.client_address), lines: [] };
  const actor = actorText(entry);
  // An email stays as written at the start of a sentence; "the operator" becomes "The operator".
  const who = actor.includes('@') ? actor : capital(actor);
  const d = entry.details || {};
  if (SETTINGS_ACTIONS[entry.action]) return { sentence: `${who} changed ${SETTINGS_ACTIONS[entry.action]}.`, lines: settingChanges(entry.action, d) };
  if (entry.action.startsWith('invitation.')) return { sentence: invitationSentence(who, entry.action, d), lines: [] };
  const sentence = peopleSentence(who, entry.action, d) || businessSentence(who, entry.action, d, actor, entry.client_address) || `${who}: ${words(entry.action)}.`;
  return { sentence, lines: [] };
}

/** A delivery attempt's outcome: "HTTP 500 in 1.2 s", or the error when nothing answered. */
export const attemptOutcome = (d) => `${d.http_status === null || d.http_status === undefined ? d.error || 'no answer' : `HTTP ${d.http_status}`} in ${duration(d.duration_ms)}`;

const seriesText = (d) => (d.series > 1 ? ` (delivery series ${d.series})` : '');

function refundSentence(d) {
  const by = d.requested_by ? ` by ${d.requested_by}` : d.source ? ` (${words(d.source)})` : '';
  return d.status === 'pending' ? `Refund of ${money(d.amount_cents)}${by} in progress.` : `Refunded ${money(d.amount_cents)}${by}.`;
}

function holdSentence(d) {
  if (!('http_status' in d)) return 'The hold was not delivered (no webhook URL): treated as insufficient funds.';
  return `Hold handshake: your endpoint answered ${attemptOutcome(d)} and ${d.accepted ? 'accepted' : 'refused'} the hold.`;
}

const TIMELINE = {
  'checkout.created': (d) => `The ${words(d.type)} checkout was created (${words(d.flow)}).`,
  'charge.created': (d) => `A ${d.transaction_type ? `${paymentKind(d.transaction_type)} ` : ''}charge of ${money(d.amount_cents)} was created: ${words(d.status)}.`,
  'charge.status': (d) => `The charge went from ${words(d.from)} to ${words(d.to)}.`,
  hold: holdSentence,
  'review.created': (d) => `A review was opened for ${money(d.amount_cents)}.`,
  'review.decided': (d) => `The review was ${words(d.status)}${d.decided_by ? ` by ${d.decided_by}` : ''}.`,
  geo_check: (d) => `The geo check ${d.passed ? 'passed' : 'failed'}${d.place ? ` in ${d.place}` : ''}.`,
  'checkout.blocked': (d) => `The checkout was blocked: ${words(d.reason)}.`,
  event: (d) => `The ${d.type} event was recorded${d.enabled ? ` (${words(d.delivery_status)})` : ': not enabled, not sent'}.`,
  'event.series': (d) => `The ${d.type} event was ${d.reason === 'replay' ? 'replayed' : 'resent'}${seriesText(d)}.`,
  'webhook.attempt': (d) => `Delivery attempt ${d.attempt} of ${d.type}${seriesText(d)}: ${attemptOutcome(d)}.`,
  refund: refundSentence,
};

/** A timeline entry as a sentence; an entry of a kind this page does not know keeps the API's summary. */
export function timelineSentence(entry) {
  const make = TIMELINE[entry.kind];
  return make ? make(entry.details || {}) : entry.summary;
}

/** The ids an entry names, for the muted line a person copies them from. */
export function recordIds(details) {
  return Object.entries(details || {}).filter(([key, value]) => key.endsWith('_id') && typeof value === 'string').map(([, value]) => value);
}
