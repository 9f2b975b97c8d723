// The bucket page's lifecycle rule editor: rules added and removed in the page, saved together (PUT .../lifecycle
// replaces them; no rules left: DELETE). The appliance's refusal names the rule (rules[i]) and is shown under it.
// What a rule has that the editor does not show (tags, sizes, a date, newer noncurrent versions) is kept as it was.
// Preview sends the editor's rules, unsaved, to POST .../lifecycle/preview and shows what they would do today.
import {put, del, post, clearErrors} from '../api.js';
import {h, bytes, count, time} from '../dom.js';
import {control, input, select, wholeNumber} from './bucket-form.js';

let nextRow = 0;

function ruleRow(rule, onRemove) {
  const n = nextRow++;
  const id = suffix => 'rule-' + n + '-' + suffix;
  const e = rule.expiration || {};
  const nc = rule.noncurrentVersionExpiration || {};
  const fields = {
    id: input(id('id'), rule.id || ''),
    prefix: input(id('prefix'), rule.filter && rule.filter.prefix ? rule.filter.prefix : ''),
    status: select(id('status'), [['Enabled', 'Enabled'], ['Disabled', 'Disabled']], rule.status || 'Enabled'),
    days: input(id('days'), e.days, {inputmode: 'numeric'}),
    noncurrent: input(id('noncurrent'), nc.noncurrentDays, {inputmode: 'numeric'}),
    abort: input(id('abort'), rule.abortIncompleteMultipartUploadDays, {inputmode: 'numeric'}),
  };
  const kept = [];
  const f = rule.filter || {};
  if (f.tags && Object.keys(f.tags).length) kept.push('tags ' + JSON.stringify(f.tags));
  if (f.objectSizeGreaterThan !== null && f.objectSizeGreaterThan !== undefined) kept.push('size > ' + f.objectSizeGreaterThan);
  if (f.objectSizeLessThan !== null && f.objectSizeLessThan !== undefined) kept.push('size < ' + f.objectSizeLessThan);
  if (e.date) kept.push('expires on ' + e.date);
  if (e.expiredObjectDeleteMarker) kept.push('removes expired delete markers');
  if (nc.newerNoncurrentVersions) kept.push('keeps ' + nc.newerNoncurrentVersions + ' newer noncurrent versions');
  const error = h('p', {class: 'field-error rule-error', id: id('error'), role: 'alert'});
  const remove = h('button', {type: 'button', class: 'secondary', id: id('remove')}, 'Remove rule');
  const box = h('fieldset', {class: 'rule', 'data-rule': n},
    h('legend', {}, 'Rule'),
    h('div', {class: 'rule-grid'},
      control(fields.id, 'Rule ID', {hint: 'Optional; unique in the bucket.'}),
      control(fields.prefix, 'Key prefix', {hint: 'Empty: every object.'}),
      control(fields.status, 'Status'),
      control(fields.days, 'Expire current versions after (days)'),
      control(fields.noncurrent, 'Remove noncurrent versions after (days)'),
      control(fields.abort, 'Abort incomplete multipart uploads after (days)')),
    kept.length ? h('p', {class: 'hint'}, 'Also (kept as it is; change it through the API): ' + kept.join(', ') + '.') : null,
    error,
    h('div', {class: 'actions'}, remove));
  remove.addEventListener('click', () => onRemove(row));
  const row = {
    box,
    error,
    toRule() {
      const days = wholeNumber(fields.days, 'the days before current versions expire');
      const noncurrent = wholeNumber(fields.noncurrent, 'the days before noncurrent versions go');
      const abort = wholeNumber(fields.abort, 'the days before incomplete uploads are aborted');
      const prefix = fields.prefix.value;
      const hasFilter = prefix !== '' || kept.length > 0;
      return {
        id: fields.id.value.trim() || null,
        status: fields.status.value,
        filter: hasFilter ? {...f, prefix: prefix === '' ? null : prefix} : null,
        expiration: days !== null ? {days} : e.date || e.expiredObjectDeleteMarker
          ? {date: e.date || null, expiredObjectDeleteMarker: e.expiredObjectDeleteMarker || null} : null,
        noncurrentVersionExpiration: noncurrent !== null || nc.newerNoncurrentVersions
          ? {noncurrentDays: noncurrent, newerNoncurrentVersions: nc.newerNoncurrentVersions || null} : null,
        abortIncompleteMultipartUploadDays: abort,
      };
    },
  };
  return row;
}

export function lifecycleForm(path, lifecycle) {
  const rows = [];
  const list = h('div', {id: 'lifecycle-rules', class: 'rules-list'});
  const none = h('p', {id: 'lifecycle-none', class: 'muted'}, 'No lifecycle rules: nothing expires.');
  const message = h('p', {class: 'message', role: 'alert', id: 'lifecycle-form-message'});
  const syncNone = () => {
    none.hidden = rows.length > 0;
  };
  const remove = row => {
    rows.splice(rows.indexOf(row), 1);
    row.box.remove();
    syncNone();
  };
  const add = rule => {
    const row = ruleRow(rule, remove);
    rows.push(row);
    list.append(row.box);
    syncNone();
    return row;
  };
  lifecycle.rules.forEach(add);
  const addButton = h('button', {type: 'button', class: 'secondary', id: 'lifecycle-add'}, 'Add rule');
  addButton.addEventListener('click', () => add({status: 'Enabled'}).box.querySelector('input').focus());
  const submit = h('button', {type: 'submit', id: 'lifecycle-form-save'}, 'Save rules');
  const previewButton = h('button', {type: 'button', class: 'secondary', id: 'lifecycle-preview'}, 'Preview');
  const previewArea = h('div', {id: 'lifecycle-preview-result', 'aria-live': 'polite'});
  const form = h('form', {id: 'lifecycle-form', novalidate: true, 'data-edit-needs': 'admin:UpdateBucket'}, none, list, message,
    h('div', {class: 'actions'}, addButton, previewButton, submit), previewArea);

  /** The rules as the editor holds them, or null after showing what is wrong under the rule at fault. */
  function editedRules() {
    clearErrors(form);
    message.textContent = '';
    message.className = 'message';
    try {
      return rows.map((row, i) => {
        try {
          return row.toRule();
        } catch (e) {
          throw {...e, field: 'rules[' + i + ']'};
        }
      });
    } catch (e) {
      showRuleError(e);
      return null;
    }
  }

  previewButton.addEventListener('click', async () => {
    const rules = editedRules();
    if (rules === null) return;
    previewArea.replaceChildren();
    if (rules.length === 0) {
      message.textContent = 'Add a rule to preview what it would do.';
      return;
    }
    previewButton.disabled = true;
    try {
      previewArea.replaceChildren(previewTable(await post(path + '/lifecycle/preview', {rules})));
    } catch (e) {
      if (e.status !== 401) showRuleError(e);
    } finally {
      previewButton.disabled = false;
    }
  });

  form.addEventListener('submit', async event => {
    event.preventDefault();
    const rules = editedRules();
    if (rules === null) return;
    submit.disabled = true;
    try {
      if (rules.length === 0) {
        await del(path + '/lifecycle');
        message.textContent = 'No lifecycle rules: nothing expires.';
      } else {
        const answer = await put(path + '/lifecycle', {rules});
        message.textContent = 'Saved ' + answer.rules.length + (answer.rules.length === 1 ? ' rule.' : ' rules.');
      }
      message.className = 'message ok';
    } catch (e) {
      if (e.status !== 401) showRuleError(e);
    } finally {
      submit.disabled = false;
    }
  });

  /** A problem naming rules[i] (or rules[i].status, ...) is shown under that rule; any other in the message line. */
  function showRuleError(e) {
    const m = /^rules\[(\d+)\]/.exec(e.field || '');
    const row = m ? rows[Number(m[1])] : null;
    if (row) {
      row.error.textContent = 'Rule ' + (Number(m[1]) + 1) + ': ' + e.message.replace(/^rules\[\d+\][^:]*: /, '');
      row.box.querySelector('input').focus();
    } else {
      message.className = 'message error';
      message.textContent = e.message;
    }
  }
  return form;
}

/** What a preview would do, one row per kind of action: how many, and the first sample keys. */
const PREVIEW_ROWS = [
  ['expiredCurrent', 'expire current versions (a delete marker placed; removed in an unversioned bucket)'],
  ['removedNoncurrent', 'remove noncurrent versions'],
  ['removedDeleteMarkers', 'remove expired delete markers'],
  ['abortedUploads', 'abort incomplete multipart uploads'],
  ['keptByLock', 'leave versions it matches in place, kept by Object Lock (retention or legal hold)'],
];

function sampleText(s) {
  return s.key + (s.versionId && s.versionId !== 'null' ? ' (' + s.versionId + ')' : '') + (s.ruleId ? ' — rule ' + s.ruleId : '');
}

function previewTable(p) {
  const body = PREVIEW_ROWS.map(([kind, label]) => {
    const a = p[kind];
    const more = a.count - a.samples.length;
    return h('tr', {'data-kind': kind},
      h('th', {scope: 'row'}, label),
      h('td', {class: 'num', 'data-key': 'count'}, count(a.count)),
      h('td', {'data-key': 'samples'}, a.samples.length === 0 ? '—' : h('ul', {class: 'sample-keys'},
        a.samples.map(s => h('li', {}, sampleText(s))),
        more > 0 ? h('li', {class: 'muted'}, 'and ' + count(more) + ' more') : null)));
  });
  return h('section', {class: 'preview', 'aria-labelledby': 'lifecycle-preview-title'},
    h('h3', {id: 'lifecycle-preview-title'}, 'Today these rules would ...'),
    h('table', {id: 'lifecycle-preview-table'},
      h('caption', {}, 'Evaluated at ' + time(p.asOf) + ' over ' + count(p.versionsExamined) + ' versions of '
        + count(p.keysExamined) + ' keys; nothing was saved or deleted.'),
      h('thead', {}, h('tr', {}, h('th', {scope: 'col'}, 'Action'), h('th', {scope: 'col'}, 'How many'),
        h('th', {scope: 'col'}, 'Sample keys'))),
      h('tbody', {}, body)),
    h('p', {id: 'lifecycle-preview-bytes'}, 'Space freed: ' + bytes(p.bytesFreed) + ' (' + count(p.bytesFreed) + ' bytes).'),
    p.stopped ? h('p', {id: 'lifecycle-preview-stopped', class: 'message error'}, 'Stopped after '
      + count(p.versionCap) + ' versions: the figures cover only the keys before that point.') : null);
}
