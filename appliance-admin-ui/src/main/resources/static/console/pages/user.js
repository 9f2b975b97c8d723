// One IAM user (#/users/NAME): enable or disable it, its groups, its attached policies (attach a built-in or customer
// policy by ARN, detach), its access keys (create with the secret shown once, disable and enable, rotate: a new key
// first, then the offer to delete the old one; delete after a confirmation), and deleting the user.
import {get, post, put, del} from '../api.js';
import {h, show, time} from '../dom.js';
import {policyName, policyPicker, confirmButton, secretBox, fail} from './identity-parts.js';

export const title = 'User';

function newKeyBox(key, oldKeyId, reload, message, keysPath) {
  const box = secretBox('key-created', 'Access key created', [
    ['Access key', 'new-key-access-key', key.accessKeyId],
    ['Secret key', 'new-key-secret-key', key.secretAccessKey],
  ]);
  if (oldKeyId) {
    // the rotation's second step: the old key keeps working until it is deleted, so clients can move over first
    box.append(h('p', {id: 'rotate-next'}, 'Rotation: once the clients use the new key, delete the old key ',
      h('code', {}, oldKeyId), ' (it works until then). '),
    h('div', {class: 'actions'}, confirmButton({
      id: 'rotate-delete-old', label: 'Delete the old key', needs: 'admin:DeleteAccessKey',
      question: 'Delete ' + oldKeyId + '? Clients still using it are refused from now on.', yes: 'Yes, delete it',
      act: async () => {
        try {
          await del(keysPath + '/' + encodeURIComponent(oldKeyId));
          await reload(h('p', {class: 'message ok', role: 'status', id: 'user-notice'},
            'Rotated: the old key ' + oldKeyId + ' is deleted; ' + key.accessKeyId + ' is the one in use.'));
        } catch (e) {
          fail(message, e, 'The old key was not deleted');
        }
      },
    })));
  }
  return box;
}

function keyRow(k, keysPath, reload, message) {
  const path = keysPath + '/' + encodeURIComponent(k.accessKeyId);
  const active = k.status === 'Active';
  const toggle = h('button', {type: 'button', class: 'secondary', 'data-toggle': k.accessKeyId, 'data-needs': 'admin:UpdateAccessKey'}, active ? 'Disable' : 'Enable');
  toggle.addEventListener('click', async () => {
    toggle.disabled = true;
    try {
      await put(path, {status: active ? 'Inactive' : 'Active'});
      await reload();
    } catch (e) {
      toggle.disabled = false;
      fail(message, e);
    }
  });
  const rotate = h('button', {type: 'button', class: 'secondary', 'data-rotate': k.accessKeyId, 'data-needs': 'admin:CreateAccessKey'}, 'Rotate');
  rotate.addEventListener('click', async () => {
    rotate.disabled = true;
    try {
      const fresh = await post(keysPath);
      await reload(newKeyBox(fresh, k.accessKeyId, reload, message, keysPath));
    } catch (e) {
      rotate.disabled = false;
      fail(message, e, 'No new key was made' + (e.code === 'LimitExceeded' ? ' (a user has at most two keys: delete one first)' : ''));
    }
  });
  const remove = confirmButton({
    id: 'delete-key-' + k.accessKeyId, label: 'Delete', needs: 'admin:DeleteAccessKey',
    question: 'Delete ' + k.accessKeyId + '? Clients using it are refused from now on.', yes: 'Yes, delete the key',
    act: async () => {
      try {
        await del(path);
        await reload();
      } catch (e) {
        fail(message, e);
      }
    },
  });
  return h('tr', {'data-key': k.accessKeyId},
    h('th', {scope: 'row'}, h('code', {}, k.accessKeyId)),
    h('td', {'data-col': 'status', class: active ? 'state-ok' : 'state-bad'}, active ? 'Active' : 'Inactive'),
    h('td', {}, time(k.created)),
    h('td', {}, h('div', {class: 'actions'}, toggle, rotate, remove)));
}

export async function render(params, ctx, notice) {
  const name = params.user;
  const path = '/api/v1/admin/iam/users/' + encodeURIComponent(name);
  const keysPath = path + '/keys';
  const [user, keys, policies] = await Promise.allSettled([get(path), get(keysPath), get('/api/v1/admin/iam/policies')]);
  const ended = [user, keys, policies].find(r => r.status === 'rejected' && r.reason.status === 401);
  if (ended) throw ended.reason;
  if (user.status === 'rejected') throw user.reason;
  const u = user.value;
  const reload = n => render(params, ctx, n);
  const message = h('p', {class: 'message', role: 'alert', id: 'user-message'});

  const enable = h('button', {type: 'button', class: 'secondary', id: 'user-toggle', 'data-needs': 'admin:UpdateUser'}, u.enabled ? 'Disable user' : 'Enable user');
  enable.addEventListener('click', async () => {
    enable.disabled = true;
    try {
      await put(path + '/enabled', {enabled: !u.enabled});
      await reload();
    } catch (e) {
      enable.disabled = false;
      fail(message, e);
    }
  });
  const removeUser = confirmButton({
    id: 'user-delete', label: 'Delete user', needs: 'admin:DeleteUser',
    question: 'Delete the user ' + u.name + '?', yes: 'Yes, delete the user',
    act: async () => {
      try {
        await del(path);
        location.hash = '#/users';
      } catch (e) {
        fail(message, e, e.code === 'DeleteConflict'
          ? 'Not deleted: delete its access keys, detach its policies and remove it from its groups first' : null);
      }
    },
  });

  const policyRows = u.attachedPolicies.map(arn => {
    const detach = h('button', {type: 'button', class: 'secondary', 'data-detach': arn, 'data-needs': 'admin:DetachPolicy'}, 'Detach');
    detach.addEventListener('click', async () => {
      detach.disabled = true;
      try {
        await del(path + '/policies?policyArn=' + encodeURIComponent(arn));
        await reload();
      } catch (e) {
        detach.disabled = false;
        fail(message, e);
      }
    });
    return h('li', {'data-policy': arn}, h('strong', {}, policyName(arn)), ' ', h('code', {class: 'muted'}, arn), ' ', detach);
  });
  let attachForm = null;
  if (policies.status === 'fulfilled') {
    const picker = policyPicker('attach-policy', 'Policy to attach', policies.value, u.attachedPolicies);
    if (picker) {
      attachForm = h('form', {class: 'inline-form', id: 'attach-form', 'data-needs': 'admin:AttachPolicy'}, picker.wrap,
        h('button', {type: 'submit', id: 'attach-submit'}, 'Attach'));
      attachForm.addEventListener('submit', async event => {
        event.preventDefault();
        try {
          await post(path + '/policies', {policyArn: picker.select.value});
          await reload();
        } catch (e) {
          fail(message, e);
        }
      });
    }
  } else {
    attachForm = h('p', {class: 'muted'}, 'The policies cannot be listed: ' + policies.reason.message);
  }

  const newKey = h('button', {type: 'button', id: 'key-create', 'data-needs': 'admin:CreateAccessKey'}, 'Create access key');
  newKey.addEventListener('click', async () => {
    newKey.disabled = true;
    try {
      await reload(newKeyBox(await post(keysPath), null, reload, message, keysPath));
    } catch (e) {
      newKey.disabled = false;
      fail(message, e, e.code === 'LimitExceeded' ? 'No key was made (a user has at most two keys)' : null);
    }
  });

  show(
    h('p', {}, h('a', {href: '#/users'}, '← Users')),
    h('h1', {}, 'User ', h('span', {id: 'user-name'}, u.name)),
    notice || null,
    message,
    h('dl', {class: 'facts', id: 'user-facts'},
      h('dt', {}, 'Enabled'), h('dd', {id: 'user-enabled', class: u.enabled ? 'state-ok' : 'state-bad'}, u.enabled ? 'yes' : 'no (its keys do not sign in)'),
      h('dt', {}, 'Created'), h('dd', {}, time(u.created)),
      h('dt', {}, 'Id'), h('dd', {}, h('code', {}, u.id))),
    h('div', {class: 'actions'}, enable, removeUser),

    h('h2', {}, 'Groups'),
    u.groups.length === 0
      ? h('p', {id: 'user-groups'}, 'In no group. Members are added on the ', h('a', {href: '#/groups'}, 'Groups'), ' page.')
      : h('p', {id: 'user-groups'}, u.groups.join(', '), ' (', h('a', {href: '#/groups'}, 'manage groups'), '). '
        + 'The user may also do what its groups\' policies allow.'),

    h('h2', {}, 'Attached policies'),
    policyRows.length === 0 ? h('p', {id: 'user-policies'}, 'None attached directly.') : h('ul', {id: 'user-policies'}, policyRows),
    u.inlinePolicies.length ? h('p', {class: 'muted'}, 'Inline policies (set through the IAM API): ' + u.inlinePolicies.join(', ')) : null,
    attachForm,

    h('h2', {}, 'Access keys'),
    keys.status === 'rejected'
      ? h('p', {class: 'message error'}, 'The keys cannot be listed: ' + keys.reason.message)
      : keys.value.length === 0
        ? h('p', {id: 'keys-empty'}, 'No access keys.')
        : h('table', {id: 'keys-table'},
            h('thead', {}, h('tr', {}, ['Access key', 'Status', 'Created', 'Actions'].map(t => h('th', {scope: 'col'}, t)))),
            h('tbody', {}, keys.value.map(k => keyRow(k, keysPath, reload, message)))),
    h('p', {class: 'muted'}, 'A user has at most two keys. Rotate makes a new key and shows its secret once; the old '
      + 'one keeps working until you delete it.'),
    h('div', {class: 'actions'}, newKey));
}
