// The Veeam bucket wizard: one request makes an Object Lock bucket (versioning on, no default retention: Veeam sets
// each object's retention), SOSAPI on, an optional quota, and a least-privilege user whose key is shown once, with the
// settings to paste into Veeam's object storage repository wizard.
import {post, showError, clearErrors} from '../api.js';
import {h, show, field, bytes, copyButton} from '../dom.js';
import {BUCKET_RULES, explainBucketError, markRules, USER_NAME} from '../rules.js';

export const title = 'Veeam bucket wizard';

const TIB = 1024 ** 4;

function created(answer) {
  const v = answer.veeam;
  const rows = [
    ['Service point (endpoint)', 'veeam-endpoint', v.endpoint],
    ['Region', 'veeam-region', v.region],
    ['Bucket', 'veeam-bucket', v.bucket],
    ['Access key', 'veeam-access-key', v.accessKeyId],
    ['Secret key', 'veeam-secret-key', v.secretAccessKey],
  ];
  show(
    h('h1', {}, 'Veeam bucket created'),
    h('p', {class: 'message warn', id: 'veeam-once', role: 'status'},
      'The secret key is shown only now. Copy it into Veeam (or a password manager) before you leave this page; '
      + 'it cannot be shown again (a new key can be made on the user).'),
    h('h2', {}, 'Paste into Veeam: Add object storage → S3 compatible (with data archiving: immutability)'),
    h('div', {class: 'secret-box', id: 'veeam-settings'},
      rows.flatMap(([label, id, value]) => [h('span', {}, label), h('code', {id}, value), copyButton(id, value)])),
    h('h2', {}, 'What was made'),
    h('ul', {},
      h('li', {}, 'Bucket ', h('strong', {}, answer.bucket.name), ': versioning ', answer.bucket.versioning,
        ', Object Lock on without a default retention, SOSAPI ', answer.bucket.sosapi ? 'on' : 'off',
        ', quota ', answer.bucket.quotaBytes === null ? 'none' : bytes(answer.bucket.quotaBytes), '.'),
      h('li', {}, 'User ', h('strong', {}, answer.user.name), ' with policy ', answer.policy.name,
        ': it may list the bucket and read, write, lock and delete objects in it, nothing else.'),
      h('li', {}, 'In Veeam, make the repository immutable and set its immutability period; Veeam sets each object\'s retention.')),
    h('div', {class: 'actions'}, h('a', {href: '#/buckets', id: 'veeam-done'}, 'Go to the buckets')));
}

export async function render() {
  const rules = h('ul', {class: 'rules', id: 'name-rules'}, BUCKET_RULES.map(([text]) => h('li', {}, text)));
  const name = field({id: 'name', label: 'Bucket name', hint: 'The bucket Veeam writes its backups into.', required: true, extra: rules});
  const quota = field({id: 'quotaTiB', label: 'Quota in TiB (optional)', inputmode: 'decimal',
    hint: 'Veeam shows it as the repository\'s capacity. Leave empty for no quota.'});
  quota.input.dataset.field = 'quotaBytes';
  const user = field({id: 'userName', label: 'Veeam user name', required: true,
    hint: 'A new user with access to this bucket only; 1 to 64 letters, digits and +=,.@_-'});
  user.input.dataset.field = 'user.name';
  let userEdited = false;
  user.input.addEventListener('input', () => (userEdited = true));
  name.input.addEventListener('input', () => {
    markRules(rules, name.input.value);
    // a bucket already named veeam-... is the user's name as it is: no veeam-veeam-...
    const bucketName = name.input.value;
    if (!userEdited) user.input.value = !bucketName || /^veeam-/i.test(bucketName) ? bucketName : 'veeam-' + bucketName;
  });
  const message = h('p', {class: 'message', role: 'alert', id: 'veeam-message'});
  const submit = h('button', {type: 'submit', id: 'veeam-create'}, 'Create bucket and key');
  const form = h('form', {class: 'stack', id: 'veeam-form', novalidate: true},
    name.wrap, quota.wrap, user.wrap, message, h('div', {class: 'actions'}, submit));
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearErrors(form);
    message.textContent = '';
    message.className = 'message';
    const quotaText = quota.input.value.trim();
    const body = {name: name.input.value.trim(), preset: 'veeam', user: {name: user.input.value.trim()}};
    if (!markRules(rules, body.name)) {
      showError(form, {field: 'name', message: 'The name breaks a rule marked below.'}, message);
      return;
    }
    if (!USER_NAME.test(body.user.name)) {
      showError(form, {field: 'user.name', message: 'Expected 1 to 64 letters, digits and +=,.@_-'}, message);
      return;
    }
    if (quotaText) {
      const tib = Number(quotaText);
      if (!(tib > 0)) {
        showError(form, {field: 'quotaBytes', message: 'Expected a positive number of TiB, or nothing.'}, message);
        return;
      }
      body.quotaBytes = Math.round(tib * TIB);
    }
    submit.disabled = true;
    try {
      created(await post('/api/v1/admin/buckets', body));
    } catch (e) {
      showError(form, explainBucketError(e, body.name), message);
    } finally {
      submit.disabled = false;
    }
  });
  show(
    h('h1', {}, 'Veeam bucket wizard'),
    h('p', {}, 'Makes a bucket ready for a Veeam Backup & Replication object storage repository with immutability: '
      + 'versioning and Object Lock on, no default retention (Veeam sets the retention of each object it writes), '
      + 'SOSAPI on (Veeam reads the capacity and the recommended settings from it), and a user with a key that may '
      + 'use this bucket only.'),
    h('div', {'data-needs': 'admin:CreateBucket admin:CreateUser admin:CreatePolicy admin:AttachPolicy admin:CreateAccessKey'}, form));
}
