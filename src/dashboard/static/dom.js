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

export const money = (cents) => (cents === null || cents === undefined ? '—' : `$${(cents / 100).toFixed(2)}`);
export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');

/** A definition list of label/value pairs; values are shown as text. */
export function facts(pairs) {
  return h('dl', { class: 'facts' }, pairs.filter(Boolean).map(([label, value]) => [h('dt', {}, label), h('dd', {}, value === null || value === undefined ? '—' : value)]));
}

/** Shows a JSON value (evidence, payloads) as text in a <pre>. */
export function json(value) {
  return h('pre', { class: 'json' }, JSON.stringify(value, null, 2));
}
