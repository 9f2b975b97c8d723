// The object browser of one bucket: its folders (common prefixes) and keys by prefix, 100 a page, with a breadcrumb
// back up; a key's versions with delete markers, retention and legal hold; download of any version, upload of a small
// file into the folder shown, and deletes that Object Lock may refuse, its reason shown in the page's alert line.
// Where it is lives in the hash (#/buckets/NAME/objects?prefix=..&key=..&marker=..), so Back and links work.
import {get, del, upload} from '../api.js';
import {h, show, bytes, time} from '../dom.js';

export const title = 'Objects';

/** The largest file the console uploads (the admin API refuses bigger ones: an S3 client takes those). */
const MAX_UPLOAD = 64 * 1024 * 1024;

function hashOf(bucket, params) {
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) q.set(name, value);
  return '#/buckets/' + encodeURIComponent(bucket) + '/objects' + (q.toString() ? '?' + q : '');
}

/** Bucket / folder / folder: each a link to that level; the last is the current one. */
function breadcrumb(bucket, prefix) {
  const parts = prefix.split('/').filter(Boolean);
  const items = [h('li', {}, prefix ? h('a', {href: hashOf(bucket, {}), 'data-prefix': ''}, bucket) : h('span', {'aria-current': 'location'}, bucket))];
  let at = '';
  parts.forEach((part, i) => {
    at += part + '/';
    const last = i === parts.length - 1;
    items.push(h('li', {}, last
      ? h('span', {'aria-current': 'location'}, part + '/')
      : h('a', {href: hashOf(bucket, {prefix: at}), 'data-prefix': at}, part + '/')));
  });
  return h('nav', {'aria-label': 'Folder', id: 'objects-breadcrumb', class: 'breadcrumb'}, h('ol', {}, items));
}

function retentionText(v) {
  if (!v.retentionMode) return 'none';
  return v.retentionMode + ' until ' + time(v.retainUntil) + (v.retentionActive ? '' : ' (expired)');
}

export async function render(params, ctx) {
  const bucket = params.bucket;
  const query = new URLSearchParams(params.query);
  const prefix = query.get('prefix') || '';
  const marker = query.get('marker') || '';
  const key = query.get('key');
  const base = '/api/v1/admin/buckets/' + encodeURIComponent(bucket) + '/objects';
  const list = new URLSearchParams({prefix, delimiter: '/', limit: '100'});
  if (marker) list.set('marker', marker);
  const [page, versions] = await Promise.allSettled(
    [get(base + '?' + list), key ? get(base + '/versions?' + new URLSearchParams({key})) : Promise.resolve(null)]);
  if (page.status === 'rejected') throw page.reason;
  const listing = page.value;

  const message = h('p', {id: 'objects-message', class: 'message', role: 'alert', 'aria-live': 'assertive'});
  const say = (text, kind, code) => {
    message.className = 'message ' + kind;
    message.textContent = text;
    if (code) message.dataset.code = code;
    else delete message.dataset.code;
  };
  // after a change the listing is read again; what happened stays said
  const again = async (text, kind) => {
    await render(params, ctx);
    const line = document.getElementById('objects-message');
    line.className = 'message ' + kind;
    line.textContent = text;
  };

  const rows = [
    ...listing.prefixes.map(p => h('tr', {'data-prefix': p},
      h('td', {}, h('a', {href: hashOf(bucket, {prefix: p})}, p.slice(prefix.length))),
      h('td', {class: 'num'}, '—'), h('td', {}, '—'), h('td', {}, 'folder'))),
    ...listing.objects.map(o => h('tr', {'data-key': o.key, 'aria-selected': o.key === key ? 'true' : null},
      h('td', {}, h('a', {href: hashOf(bucket, {prefix, key: o.key}), 'data-col': 'name'}, o.key.slice(prefix.length))),
      h('td', {class: 'num', 'data-col': 'size'}, o.deleteMarker ? '—' : bytes(o.size)),
      h('td', {'data-col': 'modified'}, time(o.modified)),
      h('td', {'data-col': 'state'}, o.deleteMarker ? 'deleted (delete marker on top)' : 'current'))),
  ];
  const table = rows.length === 0
    ? h('p', {id: 'objects-empty'}, prefix ? 'Nothing under ' + prefix + '.' : 'This bucket holds no objects.')
    : h('table', {id: 'objects-table'},
        h('caption', {class: 'muted'}, 'Folders and objects' + (prefix ? ' under ' + prefix : '')),
        h('thead', {}, h('tr', {}, ['Name', 'Size', 'Last modified', 'State'].map(t => h('th', {scope: 'col'}, t)))),
        h('tbody', {}, rows));

  show(
    h('p', {}, h('a', {href: '#/buckets/' + encodeURIComponent(bucket)}, '← Bucket ' + bucket)),
    h('h1', {}, 'Objects in ', h('span', {id: 'objects-bucket'}, bucket)),
    breadcrumb(bucket, prefix),
    message,
    table,
    listing.truncated
      ? h('p', {}, h('a', {href: hashOf(bucket, {prefix, marker: listing.nextMarker}), id: 'objects-next'}, 'Next page'))
      : null,
    marker ? h('p', {}, h('a', {href: hashOf(bucket, {prefix}), id: 'objects-first'}, 'First page')) : null,
    // offered only where the caller's policies allow it (the appliance decides each request again)
    listing.mayUpload ? uploadForm(bucket, base, prefix, say, again) : null,
    key ? versionsSection(bucket, base, key, versions, say, again) : null);
}

function uploadForm(bucket, base, prefix, say, again) {
  const file = h('input', {type: 'file', id: 'objects-file', name: 'file', 'aria-describedby': 'objects-file-hint'});
  const button = h('button', {type: 'submit', id: 'objects-upload'}, 'Upload');
  const form = h('form', {id: 'objects-upload-form', class: 'inline-form', 'aria-labelledby': 'objects-upload-title'},
    h('div', {class: 'field'},
      h('label', {for: 'objects-file'}, 'File to upload into ' + (prefix || 'the top of the bucket')),
      file,
      h('p', {class: 'hint', id: 'objects-file-hint'},
        'At most 64 MiB; it becomes a new version under the folder shown, with the bucket\'s default retention. '
        + 'Larger files: an S3 client.')),
    h('div', {class: 'actions'}, button));
  form.addEventListener('submit', async event => {
    event.preventDefault();
    const chosen = file.files[0];
    if (!chosen) {
      say('Choose a file first.', 'error');
      file.focus();
      return;
    }
    if (chosen.size > MAX_UPLOAD) {
      say(chosen.name + ' is larger than 64 MiB: upload it with an S3 client.', 'error', 'EntityTooLarge');
      return;
    }
    const key = prefix + chosen.name;
    button.disabled = true;
    try {
      const made = await upload(base + '/content?' + new URLSearchParams({key}), chosen);
      await again('Uploaded ' + made.key + ' (version ' + made.versionId + ').', 'ok');
    } catch (e) {
      if (e.status === 401) throw e;
      say(e.message, 'error', e.code);
      button.disabled = false;
    }
  });
  return h('section', {id: 'objects-upload-section', 'aria-labelledby': 'objects-upload-title'},
    h('h2', {id: 'objects-upload-title'}, 'Upload a file'), form);
}

function versionsSection(bucket, base, key, result, say, again) {
  const heading = h('h2', {id: 'versions-title'}, 'Versions of ', h('span', {id: 'versions-key'}, key));
  if (result.status === 'rejected') {
    return h('section', {id: 'objects-versions', 'aria-labelledby': 'versions-title'},
      heading, h('p', {class: 'message error', id: 'versions-error'}, result.reason.message));
  }
  const page = result.value;
  const may = page.may;
  const bypass = h('input', {type: 'checkbox', id: 'objects-bypass'});
  const remove = async (versionId, row) => {
    const q = new URLSearchParams({key});
    if (versionId) q.set('versionId', versionId);
    if (bypass.checked) q.set('bypassGovernance', 'true');
    try {
      const done = await del(base + '?' + q);
      await again(done.deleteMarker && !versionId
        ? 'Placed a delete marker on ' + key + ' (version ' + done.versionId + '); earlier versions stay.'
        : 'Deleted version ' + versionId + ' of ' + key + '.', 'ok');
    } catch (e) {
      if (e.status === 401) throw e;
      say(e.message, 'error', e.code);
      // back to one Delete button, focused, with the reason in the alert line
      if (row && row.querySelector('[data-action=cancel]')) row.querySelector('[data-action=cancel]').click();
    }
  };
  const rows = page.versions.map((v, i) => {
    const row = h('tr', {'data-version-id': v.versionId});
    const q = new URLSearchParams({key, versionId: v.versionId});
    const deleteButton = h('button', {type: 'button', class: 'secondary danger', 'data-action': 'delete',
      id: 'version-delete-' + i, 'aria-label': 'Delete version ' + v.versionId}, 'Delete');
    const cell = h('td', {class: 'actions'},
      v.deleteMarker ? null : h('a', {href: base + '/content?' + q, download: '', 'data-action': 'download',
        'aria-label': 'Download version ' + v.versionId}, 'Download'),
      may.deleteVersion ? deleteButton : null);
    // a version removed is gone for good: the first click asks, the second deletes
    deleteButton.addEventListener('click', () => {
      const confirm = h('button', {type: 'button', class: 'danger', 'data-action': 'confirm-delete',
        id: 'version-confirm-' + i}, 'Delete this version for good');
      const cancel = h('button', {type: 'button', class: 'secondary', 'data-action': 'cancel'}, 'Cancel');
      confirm.addEventListener('click', () => remove(v.versionId, row));
      cancel.addEventListener('click', () => {
        confirm.remove();
        cancel.remove();
        deleteButton.hidden = false;
        deleteButton.focus();
      });
      deleteButton.hidden = true;
      cell.append(confirm, cancel);
      confirm.focus();
    });
    row.append(
      h('td', {'data-col': 'version'}, h('code', {}, v.versionId), v.latest ? [' ', h('span', {class: 'pill'}, 'latest')] : null),
      h('td', {'data-col': 'kind'}, v.deleteMarker ? 'delete marker' : 'object'),
      h('td', {class: 'num', 'data-col': 'size'}, v.deleteMarker ? '—' : bytes(v.size)),
      h('td', {'data-col': 'modified'}, time(v.modified)),
      h('td', {'data-col': 'retention', class: v.retentionActive ? 'state-warn' : null}, retentionText(v)),
      h('td', {'data-col': 'legal-hold', class: v.legalHold ? 'state-warn' : null}, v.legalHold ? 'on' : 'off'),
      cell);
    return row;
  });
  const markerButton = h('button', {type: 'button', class: 'secondary', id: 'objects-delete-marker'},
    'Place a delete marker');
  markerButton.addEventListener('click', () => remove(null, null));
  return h('section', {id: 'objects-versions', 'aria-labelledby': 'versions-title'},
    heading,
    h('p', {class: 'muted'}, 'Newest first. Retention and legal hold are judged at the appliance\'s trusted time, '
      + time(page.now) + '.'),
    h('table', {id: 'versions-table'},
      h('thead', {}, h('tr', {}, ['Version', 'Kind', 'Size', 'Last modified', 'Retention', 'Legal hold', 'Actions']
        .map(t => h('th', {scope: 'col'}, t)))),
      h('tbody', {}, rows)),
    page.truncated ? h('p', {class: 'muted'}, 'Only the newest ' + page.versions.length + ' versions are shown.') : null,
    may.deleteVersion && may.bypassGovernance ? h('div', {class: 'field'},
      h('label', {class: 'check', for: 'objects-bypass'}, bypass,
        'Bypass governance retention (needs s3:BypassGovernanceRetention; compliance retention and legal hold never yield)')) : null,
    may.placeDeleteMarker ? h('div', {class: 'actions'}, markerButton,
      h('span', {class: 'muted'}, 'A delete marker hides the object; its versions stay.')) : null);
}
