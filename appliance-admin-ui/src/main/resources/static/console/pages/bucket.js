// One bucket: a summary, then each of its settings as its own small form, sent to its own admin API resource
// (versioning, Object Lock default retention, /settings, lifecycle, policy), usage with a Refresh, and Delete bucket.
// The forms are in bucket-*.js; each shows the appliance's refusal under the field it names.
import {get} from '../api.js';
import {h, show, bytes, time} from '../dom.js';
import {versioningForm, retentionForm} from './bucket-protection.js';
import {settingsForm, usageCard, deleteForm} from './bucket-settings.js';
import {policyForm} from './bucket-policy.js';
import {lifecycleForm} from './bucket-lifecycle.js';
import {versionCountsCard} from './bucket-usage.js';

export const title = 'Bucket';

function retentionText(r) {
  return r ? r.mode + ' ' + (r.days ? r.days + ' days' : r.years + ' years') : 'none';
}

function summary(b) {
  const rows = [
    ['Versioning', b.versioning, 'versioning'],
    ['Object Lock', b.objectLock && b.objectLock.enabled ? 'on' : 'off', 'lock'],
    ['Default retention', retentionText(b.objectLock && b.objectLock.defaultRetention), 'retention'],
    ['SOSAPI', b.sosapi ? 'on' : 'off', 'sosapi'],
    ['Quota', b.quotaBytes === null ? 'none' : bytes(b.quotaBytes), 'quota'],
    ['Created', time(b.created), 'created'],
  ];
  return h('dl', {id: 'bucket-protection'},
    rows.flatMap(([label, value, key]) => [h('dt', {}, label), h('dd', {'data-key': key}, value)]));
}

function section(id, heading, ...children) {
  return h('section', {class: 'bucket-section', id, 'aria-labelledby': id + '-title'},
    h('h2', {id: id + '-title'}, heading), children);
}

/** A part the caller may not read (an auditor reads all; a token's scope may not) says so instead of its form. */
function orRefusal(result, build) {
  return result.status === 'rejected' ? h('p', {class: 'muted'}, result.reason.message) : build(result.value);
}

export async function render(params, ctx) {
  const name = params.bucket;
  const path = '/api/v1/admin/buckets/' + encodeURIComponent(name);
  const results = await Promise.allSettled(
    [get(path), get(path + '/settings'), get(path + '/lifecycle'), get(path + '/policy')]);
  const ended = results.find(r => r.status === 'rejected' && r.reason.status === 401);
  if (ended) throw ended.reason; // on the way to the login page
  const [bucket, settings, lifecycle, policy] = results;
  if (bucket.status === 'rejected') throw bucket.reason;
  const b = bucket.value;
  let card = summary(b);
  // a saved change updates the summary at the top
  const changed = change => {
    Object.assign(b, change);
    const fresh = summary(b);
    card.replaceWith(fresh);
    card = fresh;
  };
  show(
    h('p', {}, h('a', {href: '#/buckets'}, '← Buckets')),
    h('h1', {}, 'Bucket ', h('span', {id: 'bucket-name'}, b.name)),
    h('p', {}, h('a', {href: '#/buckets/' + encodeURIComponent(b.name) + '/objects', id: 'bucket-browse'}, 'Browse objects')),
    h('div', {class: 'cards'},
      h('section', {class: 'card', 'aria-labelledby': 'protection-title'},
        h('h2', {id: 'protection-title'}, 'Protection'), card),
      usageCard(path, b.usage),
      versionCountsCard(b.usage)),
    h('div', {class: 'bucket-forms'},
      section('versioning', 'Versioning', versioningForm(path, b, changed)),
      section('retention', 'Object Lock default retention', retentionForm(path, b, changed, ctx.refresh)),
      section('settings', 'Quota, SOSAPI and version alerts', orRefusal(settings, s => settingsForm(path, s,
        c => changed({quotaBytes: c.quotaBytes, sosapi: c.sosapi === null ? Boolean(b.objectLock && b.objectLock.enabled) : c.sosapi}))))),
    section('lifecycle', 'Lifecycle rules', orRefusal(lifecycle, l => lifecycleForm(path, l))),
    section('policy', 'Bucket policy', orRefusal(policy, p => policyForm(path, b.name, p))),
    h('div', {'data-needs': 'admin:DeleteBucket'}, section('delete', 'Delete bucket', deleteForm(path, b.name))));
}
