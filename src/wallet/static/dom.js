// Small DOM helpers shared by the page's modules. Text always goes in as textContent, never HTML.

export const $ = (id) => document.getElementById(id);

export function node(tag, attrs, children) {
  const e = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') e.textContent = value;
    else if (key === 'className') e.className = value;
    else e.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children || []) if (child) e.append(child);
  return e;
}

export function show(id, visible) {
  $(id).hidden = !visible;
}

export function hideForm() {
  $('pay-form').hidden = true;
}

/** The page-level message for a checkout that cannot take a payment (expired, blocked, bad link). */
export function setStateMessage(text, tone, extra) {
  const box = $('state-message');
  box.replaceChildren(node('p', { text }));
  if (extra) box.append(extra);
  box.className = 'state-message ' + (tone || '');
  box.hidden = false;
}

/** The inline error above the pay button (role=alert, so it is announced). */
export function showError(message, detail) {
  const box = $('error');
  box.replaceChildren(node('p', { text: message }));
  if (detail) box.append(node('p', { className: 'error-detail', text: detail }));
  box.hidden = false;
}

export function clearError() {
  $('error').hidden = true;
  $('error').replaceChildren();
}

/** The outcome panel (aria-live); focus moves to its heading so keyboard users land on it. */
export function showResult(tone, heading, lines, extra) {
  const box = $('result');
  const title = node('h2', { text: heading, tabindex: '-1' });
  box.replaceChildren(title);
  for (const line of lines || []) box.append(node('p', { text: line }));
  if (extra) box.append(extra);
  box.className = 'result ' + tone;
  box.hidden = false;
  title.focus({ preventScroll: false });
}
