// The audit log: every admin change and S3 call the appliance recorded, filtered by principal, action, bucket,
// outcome and time, oldest first, 200 a page; export of the same filter as JSON lines.
import {get} from '../api.js';
import {h, show, time} from '../dom.js';

export const title = 'Audit log';

const FILTERS = [
  ['principal', 'Principal', 'an access key or user name, or part of it'],
  ['action', 'Action', 'a prefix: s3:, s3:Delete, iam:, admin:POST'],
  ['bucket', 'Bucket', 'the bucket of the resource'],
  ['outcome', 'Outcome', 'allowed, denied or an error code'],
  ['from', 'From', 'ISO-8601, e.g. 2026-11-26T00:00:00Z'],
  ['to', 'To (exclusive)', 'ISO-8601'],
];
const PAGE = 200;

export async function render(params) {
  const query = new URLSearchParams(params.query);
  const api = new URLSearchParams();
  for (const [name] of FILTERS) if (query.get(name)) api.set(name, query.get(name));
  const exportHref = '/api/v1/admin/audit/export' + (api.toString() ? '?' + api : '');
  api.set('limit', String(PAGE));
  const page = await get('/api/v1/admin/audit?' + api);

  const form = h('form', {id: 'audit-filter', class: 'filters'},
    FILTERS.map(([name, label, hint]) => h('div', {class: 'field'},
      h('label', {for: 'audit-' + name}, label),
      h('input', {id: 'audit-' + name, name, value: query.get(name) || '', 'aria-describedby': 'audit-' + name + '-hint'}),
      h('p', {class: 'hint', id: 'audit-' + name + '-hint'}, hint))),
    h('div', {class: 'actions'}, h('button', {type: 'submit', id: 'audit-apply'}, 'Filter'), h('a', {href: '#/audit'}, 'Clear')));
  form.addEventListener('submit', event => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [name] of FILTERS) {
      const value = form.elements[name].value.trim();
      if (value) next.set(name, value);
    }
    location.hash = '#/audit' + (next.toString() ? '?' + next : '');
  });
  const last = page.events.length ? page.events[page.events.length - 1] : null;
  const more = new URLSearchParams(query);
  if (last) more.set('from', last.time);
  show(
    h('h1', {}, 'Audit log'),
    form,
    h('p', {id: 'audit-count'}, page.count + ' event(s), oldest first' + (page.truncated ? '; more match' : '') + '. ',
      h('a', {href: exportHref, download: 'audit.jsonl', id: 'audit-export'}, 'Export this filter as JSON lines')),
    page.events.length === 0
      ? h('p', {id: 'audit-none'}, 'No events match.')
      : h('table', {id: 'audit-table'},
          h('thead', {}, h('tr', {}, ['Time', 'Principal', 'Source', 'Action', 'Resource', 'Outcome', 'Status'].map(t => h('th', {scope: 'col'}, t)))),
          h('tbody', {}, page.events.map(e => h('tr', {'data-action': e.action},
            h('td', {}, time(e.time)), h('td', {}, e.principal), h('td', {}, e.source),
            h('td', {'data-col': 'action'}, e.action), h('td', {}, e.resource),
            h('td', {'data-col': 'outcome', class: e.outcome === 'allowed' ? null : 'state-bad'}, e.outcome),
            h('td', {class: 'num', 'data-col': 'status'}, e.status))))),
    page.truncated && last
      ? h('p', {}, h('a', {href: '#/audit?' + more, id: 'audit-next'}, 'Next events (from ' + time(last.time) + ')'))
      : null);
}
