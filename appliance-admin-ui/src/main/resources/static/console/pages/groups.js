// IAM groups: each with its members (add, remove) and policies (attach a built-in or customer policy by ARN, detach);
// a new group; deleting one, which IAM refuses while it has members or policies (the page says what to do).
import {get, post, put, del, showError, clearErrors} from '../api.js';
import {h, show, field, time} from '../dom.js';
import {USER_NAME} from '../rules.js';
import {policyName, policyPicker, confirmButton, fail} from './identity-parts.js';

export const title = 'Groups';

function groupCard(g, users, policies, reload, message) {
  const path = '/api/v1/admin/iam/groups/' + encodeURIComponent(g.name);
  const slug = g.name.replace(/[^A-Za-z0-9_-]/g, '_');
  const action = (button, run) => button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await run();
      await reload();
    } catch (e) {
      button.disabled = false;
      fail(message, e, 'Group ' + g.name);
    }
  });

  const members = g.members.map(m => {
    const remove = h('button', {type: 'button', class: 'secondary', 'data-remove-member': m, 'data-needs': 'admin:UpdateGroup'}, 'Remove');
    action(remove, () => del(path + '/members/' + encodeURIComponent(m)));
    return h('li', {'data-member': m}, h('a', {href: '#/users/' + encodeURIComponent(m)}, m), ' ', remove);
  });
  const candidates = users.filter(u => !g.members.some(m => m.toLowerCase() === u.name.toLowerCase()));
  let addMember = null;
  if (candidates.length) {
    const id = 'add-member-' + slug;
    const select = h('select', {id, name: id}, candidates.map(u => h('option', {value: u.name}, u.name)));
    const add = h('button', {type: 'button', 'data-add-member': g.name}, 'Add member');
    action(add, () => put(path + '/members/' + encodeURIComponent(select.value)));
    addMember = h('div', {class: 'inline-form', 'data-needs': 'admin:UpdateGroup'}, h('div', {class: 'field inline'}, h('label', {for: id}, 'User'), select), add);
  }

  const attached = g.attachedPolicies.map(arn => {
    const detach = h('button', {type: 'button', class: 'secondary', 'data-detach': arn, 'data-needs': 'admin:DetachPolicy'}, 'Detach');
    action(detach, () => del(path + '/policies?policyArn=' + encodeURIComponent(arn)));
    return h('li', {'data-policy': arn}, h('strong', {}, policyName(arn)), ' ', detach);
  });
  let attach = null;
  const picker = policies ? policyPicker('attach-policy-' + slug, 'Policy', policies, g.attachedPolicies) : null;
  if (picker) {
    const button = h('button', {type: 'button', 'data-attach': g.name}, 'Attach policy');
    action(button, () => post(path + '/policies', {policyArn: picker.select.value}));
    attach = h('div', {class: 'inline-form', 'data-needs': 'admin:AttachPolicy'}, picker.wrap, button);
  }

  const remove = confirmButton({
    id: 'delete-group-' + slug, label: 'Delete group', needs: 'admin:DeleteGroup',
    question: 'Delete the group ' + g.name + '?', yes: 'Yes, delete the group',
    act: async () => {
      try {
        await del(path);
        await reload(h('p', {class: 'message ok', role: 'status', id: 'groups-notice'}, 'Group ' + g.name + ' deleted.'));
      } catch (e) {
        fail(message, e, e.code === 'DeleteConflict'
          ? 'Group ' + g.name + ' not deleted: remove its members and detach its policies first' : 'Group ' + g.name);
      }
    },
  });

  return h('article', {class: 'card', 'data-group': g.name},
    h('h2', {}, g.name),
    h('p', {class: 'muted'}, 'Created ' + time(g.created)),
    h('h3', {}, 'Members'),
    members.length ? h('ul', {'data-col': 'members'}, members) : h('p', {'data-col': 'members'}, 'No members.'),
    addMember,
    h('h3', {}, 'Policies (its members get what they allow)'),
    attached.length ? h('ul', {'data-col': 'policies'}, attached) : h('p', {'data-col': 'policies'}, 'None attached.'),
    g.inlinePolicies.length ? h('p', {class: 'muted'}, 'Inline policies: ' + g.inlinePolicies.join(', ')) : null,
    attach,
    h('div', {class: 'actions'}, remove));
}

function newGroupForm(reload) {
  const name = field({id: 'groupName', label: 'Group name', required: true, hint: '1 to 128 letters, digits and +=,.@_-'});
  name.input.dataset.field = 'name';
  const message = h('p', {class: 'message', role: 'alert', id: 'new-group-message'});
  const submit = h('button', {type: 'submit', id: 'new-group-create'}, 'Create group');
  const form = h('form', {class: 'stack', id: 'new-group-form', novalidate: true}, name.wrap, message, h('div', {class: 'actions'}, submit));
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearErrors(form);
    message.textContent = '';
    const groupName = name.input.value.trim();
    if (!/^[A-Za-z0-9+=,.@_-]{1,128}$/.test(groupName)) {
      showError(form, {field: 'name', message: 'Expected 1 to 128 letters, digits and +=,.@_-'}, message);
      return;
    }
    submit.disabled = true;
    try {
      await post('/api/v1/admin/iam/groups', {name: groupName});
      await reload(h('p', {class: 'message ok', role: 'status', id: 'groups-notice'}, 'Group ' + groupName + ' created.'));
    } catch (e) {
      submit.disabled = false;
      showError(form, e, message);
    }
  });
  return form;
}

export async function render(params, ctx, notice) {
  const [groups, users, policies] = await Promise.allSettled([
    get('/api/v1/admin/iam/groups'), get('/api/v1/admin/iam/users'), get('/api/v1/admin/iam/policies')]);
  const ended = [groups, users, policies].find(r => r.status === 'rejected' && r.reason.status === 401);
  if (ended) throw ended.reason;
  if (groups.status === 'rejected') throw groups.reason;
  const reload = n => render(params, ctx, n);
  const message = h('p', {class: 'message', role: 'alert', id: 'groups-message'});
  const userList = users.status === 'fulfilled' ? users.value.filter(u => USER_NAME.test(u.name)) : [];
  show(
    h('h1', {}, 'Groups'),
    notice || null,
    h('p', {class: 'muted'}, 'A group gives its members the policies attached to it: attach a policy once to the '
      + 'group instead of to each user.'),
    message,
    groups.value.length === 0
      ? h('p', {id: 'groups-empty'}, 'No groups yet.')
      : h('div', {class: 'cards wide-cards', id: 'groups'},
          groups.value.map(g => groupCard(g, userList, policies.status === 'fulfilled' ? policies.value : null, reload, message))),
    h('section', {'data-needs': 'admin:CreateGroup'}, h('h2', {}, 'New group'), newGroupForm(reload)));
}
