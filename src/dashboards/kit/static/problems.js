// The pages a dashboard shows instead of the one asked for: a page the person's role may not open,
// and a page whose data could not be read (not found, the service unavailable, an error). Every
// one says what happened in words, offers what to do next, and never shows a raw answer.
import { config } from './config.js';
import { ApiError } from './ui.js';
import { h } from './dom.js';
import { roleName } from './sentences.js';

const homeHref = () => config.mount;
const listOf = (names) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`);

/** A role may not open the page: which roles may, and who the person is signed in as. */
export function noAccessPage(label, roles, role) {
  const who = roles.length ? `Only the ${listOf(roles.map(roleName))} role${roles.length > 1 ? 's' : ''} can open it.` : 'No role can open it from this dashboard.';
  return h('section', { class: 'card problem', 'data-problem': 'no-access' },
    h('h2', {}, `The ${label} page is not open to your role`),
    h('p', {}, `${who} You are signed in as ${roleName(role)}.`),
    h('p', {}, 'Ask an owner of the account to change your role if you need it.'),
    h('a', { class: 'button secondary', href: homeHref() }, 'Go to the dashboard'),
  );
}

/** What went wrong, as a title and a sentence, from the API's {error, hint} (never its raw body). */
function problemText(error) {
  const said = error instanceof ApiError && error.body && error.body.error ? [error.body.error, error.body.hint].filter(Boolean).join(' ') : null;
  if (!(error instanceof ApiError)) return ['The service could not be reached', 'Check your connection, then try again.', 'unreachable'];
  if (error.status === 403) return ['This page is not open to your role', said || 'Your role may not read this page.', 'forbidden'];
  if (error.status === 404) return ['Not found', said || 'What this page shows does not exist, or is not yours.', 'not-found'];
  if (error.status === 503) return ['The service is unavailable right now', 'Nothing was changed. Try again in a minute.', 'unavailable'];
  return ['Something went wrong on our side', 'Nothing was changed. Try again; if it keeps happening, tell the operator the reference below.', 'error'];
}

/** The page for a read that failed while the page was rendered: what happened, Try again, and the way home. */
export function loadFailedPage(error) {
  const [title, text, kind] = problemText(error);
  const reference = error instanceof ApiError && error.body && error.body.request_id;
  return h('section', { class: 'card problem', 'data-problem': kind, role: 'alert' },
    h('h2', {}, title),
    h('p', {}, text),
    reference ? h('p', { class: 'muted' }, h('small', {}, 'Reference: ', h('code', { class: 'id' }, reference))) : null,
    h('div', { class: 'row' },
      h('button', { type: 'button', class: 'primary', onclick: () => location.reload() }, 'Try again'),
      h('a', { class: 'button secondary', href: homeHref() }, 'Go to the dashboard')),
  );
}
