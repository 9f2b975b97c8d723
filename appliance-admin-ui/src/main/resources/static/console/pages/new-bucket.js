// Create a bucket: the naming rules beside the name, versioning, Object Lock (which needs versioning, for good) and a
// quota. The appliance checks everything again; its refusal is shown under the field it names.
import {post, showError, clearErrors} from '../api.js';
import {h, show, field} from '../dom.js';
import {BUCKET_RULES, explainBucketError, markRules} from '../rules.js';

export const title = 'New bucket';

const GIB = 1024 ** 3;

function checkbox(id, label, hint) {
  const input = h('input', {type: 'checkbox', id, name: id, 'aria-describedby': id + '-hint'});
  return {
    input,
    wrap: h('div', {class: 'field'},
      h('label', {class: 'check'}, input, label),
      h('p', {class: 'hint', id: id + '-hint'}, hint)),
  };
}

export async function render() {
  const rules = h('ul', {class: 'rules', id: 'name-rules'}, BUCKET_RULES.map(([text]) => h('li', {}, text)));
  const name = field({id: 'name', label: 'Bucket name', required: true, extra: rules});
  name.input.addEventListener('input', () => markRules(rules, name.input.value));
  const versioning = checkbox('versioning', 'Versioning', 'Keep every version of an object; can be suspended later, not undone.');
  versioning.input.checked = true;
  const lock = checkbox('objectLock', 'Object Lock', 'Versions can be locked against deletion (retention, legal hold). '
    + 'Needs versioning, which then stays on for good. Cannot be turned off.');
  lock.input.addEventListener('change', () => {
    if (lock.input.checked) versioning.input.checked = true;
    versioning.input.disabled = lock.input.checked;
  });
  const quota = field({id: 'quotaGiB', label: 'Quota in GiB (optional)', inputmode: 'decimal', hint: 'Writes past it are refused. Leave empty for none.'});
  quota.input.dataset.field = 'quotaBytes';
  const message = h('p', {class: 'message', role: 'alert', id: 'new-bucket-message'});
  const submit = h('button', {type: 'submit', id: 'new-bucket-create'}, 'Create bucket');
  const form = h('form', {class: 'stack', id: 'new-bucket-form', novalidate: true},
    name.wrap, versioning.wrap, lock.wrap, quota.wrap, message, h('div', {class: 'actions'}, submit));
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearErrors(form);
    message.textContent = '';
    message.className = 'message';
    const body = {name: name.input.value.trim()};
    if (!markRules(rules, body.name)) {
      showError(form, {field: 'name', message: 'The name breaks a rule marked below.'}, message);
      return;
    }
    if (versioning.input.checked) body.versioning = 'Enabled';
    if (lock.input.checked) body.objectLock = {enabled: true};
    const quotaText = quota.input.value.trim();
    if (quotaText) {
      const gib = Number(quotaText);
      if (!(gib > 0)) {
        showError(form, {field: 'quotaBytes', message: 'Expected a positive number of GiB, or nothing.'}, message);
        return;
      }
      body.quotaBytes = Math.round(gib * GIB);
    }
    submit.disabled = true;
    try {
      const created = await post('/api/v1/admin/buckets', body);
      location.hash = '#/buckets/' + encodeURIComponent(created.bucket.name);
    } catch (e) {
      showError(form, explainBucketError(e, body.name), message);
    } finally {
      submit.disabled = false;
    }
  });
  show(h('p', {}, h('a', {href: '#/buckets'}, '← Buckets')), h('h1', {}, 'New bucket'),
    h('p', {class: 'muted'}, 'For a Veeam repository use the ', h('a', {href: '#/veeam'}, 'Veeam bucket wizard'),
      ': it also makes the least-privilege key.'),
    h('div', {'data-needs': 'admin:CreateBucket'}, form));
}
