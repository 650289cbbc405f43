// Shared by the operator's and the merchant's dashboards (served under each one's /assets/).
// Every piece of data reaches the page as text (textContent / text nodes), never as HTML.

/** h('tag', {attrs, onclick}, ...children): children that are not nodes become text nodes. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

const formats = new Map();
/** Integer cents as money in the currency (the contract's is USD): 123456 -> "$1,234.56". */
export function money(cents, currency = 'USD') {
  if (cents === null || cents === undefined) return '—';
  if (!formats.has(currency)) formats.set(currency, new Intl.NumberFormat('en-US', { style: 'currency', currency }));
  return formats.get(currency).format(cents / 100);
}
/** Dollars as a person types them ("12.50") as the API's integer cents ("1250"); '' (or anything not a number) stays ''. */
export const centsOf = (dollars) => (dollars === null || dollars === undefined || dollars === '' || Number.isNaN(Number(dollars)) ? '' : String(Math.round(Number(dollars) * 100)));
// One date format on every page, whatever the browser's locale: "Nov 28, 2026, 9:05 AM".
const dateFormat = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });
export const when = (iso) => (iso ? dateFormat.format(new Date(iso)) : '—');

/** A definition list of label/value pairs; values are shown as text. */
export function facts(pairs) {
  return h('dl', { class: 'facts' }, pairs.filter(Boolean).map(([label, value]) => [h('dt', {}, label), h('dd', {}, value === null || value === undefined ? '—' : value)]));
}

/** Shows a JSON value (evidence, payloads) as text in a <pre>. */
export function json(value) {
  return h('pre', { class: 'json' }, JSON.stringify(value, null, 2));
}
