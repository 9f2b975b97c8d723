// One bucket, read only for now: versioning, Object Lock and its default retention, quota, SOSAPI, usage, lifecycle
// rules and the bucket policy, each from its own admin API resource.
import {get} from '../api.js';
import {h, show, bytes, count, time} from '../dom.js';

export const title = 'Bucket';

function figures(id, rows) {
  return h('dl', {id}, rows.flatMap(([label, value]) => [h('dt', {}, label), h('dd', {}, value)]));
}

export async function render(params) {
  const name = params.bucket;
  const path = '/api/v1/admin/buckets/' + encodeURIComponent(name);
  const [bucket, lifecycle, policy] = await Promise.allSettled([get(path), get(path + '/lifecycle'), get(path + '/policy')]);
  const ended = [bucket, lifecycle, policy].find(r => r.status === 'rejected' && r.reason.status === 401);
  if (ended) throw ended.reason; // on the way to the login page
  if (bucket.status === 'rejected') throw bucket.reason;
  const b = bucket.value;
  const r = b.objectLock && b.objectLock.defaultRetention;
  show(
    h('p', {}, h('a', {href: '#/buckets'}, '← Buckets')),
    h('h1', {}, 'Bucket ', h('span', {id: 'bucket-name'}, b.name)),
    h('div', {class: 'cards'},
      h('section', {class: 'card'}, h('h2', {}, 'Protection'), figures('bucket-protection', [
        ['Versioning', b.versioning],
        ['Object Lock', b.objectLock && b.objectLock.enabled ? 'on' : 'off'],
        ['Default retention', r ? r.mode + ' ' + (r.days ? r.days + ' days' : r.years + ' years') : 'none'],
        ['SOSAPI', b.sosapi ? 'on' : 'off'],
        ['Quota', b.quotaBytes === null ? 'none' : bytes(b.quotaBytes)],
        ['Created', time(b.created)],
      ])),
      h('section', {class: 'card'}, h('h2', {}, 'Usage'), b.usage ? figures('bucket-usage', [
        ['Objects', count(b.usage.objects)],
        ['Versions', count(b.usage.versions)],
        ['Delete markers', count(b.usage.deleteMarkers)],
        ['Size', bytes(b.usage.bytes)],
        ['Counted at', time(b.usage.countedAt)],
      ]) : h('p', {class: 'muted'}, 'Not counted yet.'))),
    h('h2', {}, 'Lifecycle rules'),
    lifecycle.status === 'rejected'
      ? h('p', {class: 'muted'}, lifecycle.reason.message)
      : lifecycle.value.rules.length === 0
        ? h('p', {id: 'bucket-lifecycle-none'}, 'No lifecycle rules: nothing expires.')
        : h('table', {id: 'bucket-lifecycle'},
            h('thead', {}, h('tr', {}, ['Rule', 'Status', 'Applies to', 'Expires'].map(t => h('th', {scope: 'col'}, t)))),
            h('tbody', {}, lifecycle.value.rules.map(rule => h('tr', {},
              h('td', {}, rule.id || '—'),
              h('td', {}, rule.status),
              h('td', {}, rule.filter && rule.filter.prefix ? 'prefix ' + rule.filter.prefix : 'every object'),
              h('td', {}, JSON.stringify({expiration: rule.expiration, noncurrentVersionExpiration: rule.noncurrentVersionExpiration,
                abortIncompleteMultipartUploadDays: rule.abortIncompleteMultipartUploadDays})))))),
    h('h2', {}, 'Bucket policy'),
    policy.status === 'rejected'
      ? h('p', {class: 'muted'}, policy.reason.message)
      : policy.value.document === null
        ? h('p', {id: 'bucket-policy-none'}, 'No bucket policy: access is what the users\' policies allow.')
        : h('pre', {id: 'bucket-policy'}, JSON.stringify(JSON.parse(policy.value.document), null, 2)));
}
