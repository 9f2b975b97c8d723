// IAM users, read only for now: enabled, policies, groups.
import {get} from '../api.js';
import {h, show, time} from '../dom.js';

export const title = 'Users';

export async function render() {
  const users = await get('/api/v1/admin/iam/users');
  show(
    h('h1', {}, 'Users'),
    h('p', {class: 'muted'}, 'IAM users of this appliance (root is not one: it is the credential printed at the first start).'),
    users.length === 0
      ? h('p', {id: 'users-empty'}, 'No users yet. Create an admin user for daily work instead of the root credential.')
      : h('table', {id: 'users-table'},
          h('thead', {}, h('tr', {}, ['Name', 'Enabled', 'Policies', 'Groups', 'Created'].map(t => h('th', {scope: 'col'}, t)))),
          h('tbody', {}, users.map(u => h('tr', {'data-user': u.name},
            h('th', {scope: 'row'}, u.name),
            h('td', {class: u.enabled ? 'state-ok' : 'state-bad'}, u.enabled ? 'yes' : 'no'),
            h('td', {}, u.attachedPolicies.map(p => p.replace(/^arn:aws:iam::[^:]*:policy\//, '')).join(', ') || '—'),
            h('td', {}, u.groups.join(', ') || '—'),
            h('td', {}, time(u.created)))))));
}
