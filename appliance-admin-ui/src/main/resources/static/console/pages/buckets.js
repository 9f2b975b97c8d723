// Buckets, a page of 100 by name: usage as last counted, versioning, Object Lock and quota.
import {get} from '../api.js';
import {h, show, bytes, count, time} from '../dom.js';

export const title = 'Buckets';

function lock(b) {
  if (!b.objectLock || !b.objectLock.enabled) return 'off';
  const r = b.objectLock.defaultRetention;
  return r ? 'on, default ' + r.mode + ' ' + (r.days ? r.days + ' days' : r.years + ' years') : 'on';
}

export async function render(params, ctx) {
  const after = new URLSearchParams(params.query).get('after');
  const page = await get('/api/v1/admin/buckets?limit=100' + (after ? '&after=' + encodeURIComponent(after) : ''));
  const rows = page.buckets.map(b => h('tr', {'data-bucket': b.name},
    h('th', {scope: 'row'}, h('a', {href: '#/buckets/' + encodeURIComponent(b.name)}, b.name)),
    h('td', {class: 'num', 'data-col': 'objects'}, count(b.usage && b.usage.objects)),
    h('td', {class: 'num', 'data-col': 'versions'}, count(b.usage && b.usage.versions)),
    h('td', {class: 'num', 'data-col': 'bytes'}, b.usage ? bytes(b.usage.bytes) : '—'),
    h('td', {'data-col': 'versioning'}, b.versioning),
    h('td', {'data-col': 'lock'}, lock(b)),
    h('td', {class: 'num', 'data-col': 'quota'}, b.quotaBytes === null ? 'none' : bytes(b.quotaBytes)),
    h('td', {'data-col': 'counted'}, time(b.usage && b.usage.countedAt))));
  show(
    h('div', {class: 'actions'},
      h('h1', {}, 'Buckets'),
      h('button', {type: 'button', class: 'secondary', id: 'buckets-refresh', onclick: () => ctx.refresh()}, 'Refresh'),
      h('a', {href: '#/new-bucket', id: 'buckets-new', 'data-needs': 'admin:CreateBucket'}, 'New bucket…'),
      h('a', {href: '#/veeam', id: 'buckets-veeam', 'data-needs': 'admin:CreateBucket admin:CreateUser admin:CreatePolicy admin:AttachPolicy admin:CreateAccessKey'}, 'New Veeam bucket…')),
    h('p', {class: 'muted'}, 'Usage is as last counted: by the background scanner, or by a recount a few seconds after a write '
      + '(a read after a write starts it; refresh to see it).'),
    rows.length === 0
      ? h('p', {id: 'buckets-empty'}, 'No buckets yet.')
      : h('table', {id: 'buckets-table'},
          h('caption', {class: 'muted'}, after ? 'Buckets after ' + after : 'Buckets'),
          h('thead', {}, h('tr', {},
            ['Name', 'Objects', 'Versions', 'Size', 'Versioning', 'Object Lock', 'Quota', 'Counted at'].map((t, i) =>
              h('th', {scope: 'col', class: i >= 1 && i <= 3 || i === 6 ? 'num' : null}, t)))),
          h('tbody', {}, rows)),
    h('div', {class: 'actions'},
      after ? h('a', {href: '#/buckets'}, 'First page') : null,
      page.next ? h('a', {href: '#/buckets?after=' + encodeURIComponent(page.next), id: 'buckets-next'}, 'Next page') : null));
}
