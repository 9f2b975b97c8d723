// IAM users: the list (enabled, policies, groups), and a new user with a built-in policy and an access key whose
// secret is shown once. Three API calls (user, policy, key): if a later one is refused, the page says what was made.
import {get, post, showError, clearErrors} from '../api.js';
import {h, show, field, time, copyButton} from '../dom.js';
import {USER_NAME} from '../rules.js';

export const title = 'Users';

const POLICIES = [
  ['admin', 'admin: everything, on the console and on S3'],
  ['auditor', 'auditor: reads everything but secrets, changes nothing'],
  ['readwrite', 'readwrite: S3 objects and buckets'],
  ['readonly', 'readonly: reads S3 objects'],
  ['', 'none (attach policies later)'],
];

function createdKey(user, policy, key) {
  const rows = [['User', 'new-user-name', user], ['Policy', 'new-user-policy', policy || 'none'],
    ['Access key', 'new-user-access-key', key.accessKeyId], ['Secret key', 'new-user-secret-key', key.secretAccessKey]];
  return h('section', {id: 'new-user-created', 'aria-labelledby': 'new-user-created-title'},
    h('h2', {id: 'new-user-created-title'}, 'User created'),
    h('p', {class: 'message warn', role: 'status'},
      'The secret key is shown only now: store it before you leave this page. It cannot be shown again.'),
    h('div', {class: 'secret-box'}, rows.flatMap(([label, id, value]) => [h('span', {}, label), h('code', {id}, value), copyButton(id, value)])));
}

function newUserForm(reload) {
  const name = field({id: 'userName', label: 'User name', required: true, hint: '1 to 64 letters, digits and +=,.@_-'});
  name.input.dataset.field = 'name';
  const select = h('select', {id: 'userPolicy', name: 'userPolicy', 'aria-describedby': 'userPolicy-error'},
    POLICIES.map(([value, label]) => h('option', {value}, label)));
  const policy = h('div', {class: 'field'}, h('label', {for: 'userPolicy'}, 'Policy'), select,
    h('p', {class: 'field-error', id: 'userPolicy-error', role: 'alert'}));
  select.dataset.field = 'policyArn';
  const message = h('p', {class: 'message', role: 'alert', id: 'new-user-message'});
  const submit = h('button', {type: 'submit', id: 'new-user-create'}, 'Create user and access key');
  const result = h('div', {id: 'new-user-result'});
  const form = h('form', {class: 'stack', id: 'new-user-form', novalidate: true}, name.wrap, policy, message,
    h('div', {class: 'actions'}, submit));
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearErrors(form);
    message.textContent = '';
    message.className = 'message';
    const userName = name.input.value.trim();
    if (!USER_NAME.test(userName)) {
      showError(form, {field: 'name', message: 'Expected 1 to 64 letters, digits and +=,.@_-'}, message);
      return;
    }
    const chosen = select.value;
    const enc = encodeURIComponent(userName);
    submit.disabled = true;
    let step = 'creating the user';
    try {
      await post('/api/v1/admin/iam/users', {name: userName});
      if (chosen) {
        step = 'attaching the policy (the user exists without it)';
        await post('/api/v1/admin/iam/users/' + enc + '/policies', {policyArn: 'arn:aws:iam::aws:policy/' + chosen});
      }
      step = 'creating the access key (the user exists without one)';
      const key = await post('/api/v1/admin/iam/users/' + enc + '/keys');
      form.reset();
      await reload(createdKey(userName, chosen, key));
    } catch (e) {
      if (step !== 'creating the user') e.message = 'Refused while ' + step + ': ' + e.message;
      showError(form, e, message);
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

export async function render(params, ctx, notice) {
  const users = await get('/api/v1/admin/iam/users');
  show(
    h('h1', {}, 'Users'),
    notice || null,
    h('p', {class: 'muted'}, 'IAM users of this appliance. Root is not one of them: it is the credential of the first '
      + 'start. Give daily work an admin user of its own, and auditors the auditor policy.'),
    users.length === 0
      ? h('p', {id: 'users-empty'}, 'No users yet.')
      : h('table', {id: 'users-table'},
          h('thead', {}, h('tr', {}, ['Name', 'Enabled', 'Policies', 'Groups', 'Created'].map(t => h('th', {scope: 'col'}, t)))),
          h('tbody', {}, users.map(u => h('tr', {'data-user': u.name},
            h('th', {scope: 'row'}, h('a', {href: '#/users/' + encodeURIComponent(u.name)}, u.name)),
            h('td', {class: u.enabled ? 'state-ok' : 'state-bad'}, u.enabled ? 'yes' : 'no'),
            h('td', {'data-col': 'policies'}, u.attachedPolicies.map(p => p.replace(/^arn:aws:iam::[^:]*:policy\//, '')).join(', ') || '—'),
            h('td', {}, u.groups.join(', ') || '—'),
            h('td', {}, time(u.created)))))),
    h('section', {'data-needs': 'admin:CreateUser admin:AttachPolicy admin:CreateAccessKey'},
      h('h2', {}, 'New user'),
      newUserForm(created => render(params, ctx, created))));
}
