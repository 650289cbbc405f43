// The operator's pages name merchants and customers; the ids stay beside the names, to copy.
import { h } from './dom.js';

/** A name with its id after it, small and muted (selectable as one word to copy). */
export const withId = (name, id) => h('span', {}, name || h('code', { class: 'id' }, id), name ? [' ', h('small', { class: 'muted' }, h('code', { class: 'id' }, id))] : null);

/** The merchant by name, a link to its page, with its id. */
export const merchantLink = (id, name) => h('span', {}, h('a', { href: `/dashboard/merchants?id=${encodeURIComponent(id)}` }, name || h('code', { class: 'id' }, id)), name ? [' ', h('small', { class: 'muted' }, h('code', { class: 'id' }, id))] : null);

/** Ids to copy, each marked as an id, on one muted line. */
export const idLine = (ids) => h('small', { class: 'muted' }, ids.filter(Boolean).map((id, i) => [i ? ' · ' : '', h('code', { class: 'id' }, id)]));

