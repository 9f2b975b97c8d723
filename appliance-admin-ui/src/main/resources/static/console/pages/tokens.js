// Admin tokens for scripts: the list (name, owner, scope, expiry, whether expired; never a secret), a new token
// (name, scope from the policies, lifetime in days) whose secret is shown once with a curl example, and revoking one.
import {get, post, del, showError, clearErrors} from '../api.js';
import {h, show, field, time} from '../dom.js';
import {policyName, confirmButton, secretBox, fail} from './identity-parts.js';

export const title = 'Admin tokens';

function created(token) {
  const example = 'curl -H "Authorization: Bearer ' + token.secret + '" ' + location.origin + '/api/v1/admin/status';
  return secretBox('token-created', 'Token ' + token.name + ' created', [
    ['Token id', 'new-token-id', token.id],
    ['Secret (bearer token)', 'new-token-secret', token.secret],
    ['Try it', 'new-token-curl', example],
  ], 'The secret is shown only now: store it in the script\'s secret store before you leave this page. It cannot be '
    + 'shown again; it expires ' + time(token.expiresAt) + '.');
}

function tokenRow(t, reload, message) {
  const revoke = confirmButton({
    id: 'revoke-' + t.id, label: 'Revoke', needs: 'admin:RevokeToken',
    question: 'Revoke ' + t.name + '? Scripts using it are refused from now on.', yes: 'Yes, revoke it',
    act: async () => {
      try {
        await del('/api/v1/admin/tokens/' + encodeURIComponent(t.id));
        await reload(h('p', {class: 'message ok', role: 'status', id: 'tokens-notice'}, 'Token ' + t.name + ' revoked.'));
      } catch (e) {
        fail(message, e, 'Token ' + t.name);
      }
    },
  });
  return h('tr', {'data-token': t.name, 'data-token-id': t.id},
    h('th', {scope: 'row'}, t.name),
    h('td', {'data-col': 'owner'}, t.owner),
    h('td', {'data-col': 'scope'}, t.policyArns.map(policyName).join(', ')),
    h('td', {}, time(t.createdAt)),
    h('td', {'data-col': 'expires'}, time(t.expiresAt)),
    h('td', {'data-col': 'expired', class: t.expired ? 'state-bad' : 'state-ok'}, t.expired ? 'yes' : 'no'),
    h('td', {}, revoke));
}

function newTokenForm(policies, reload) {
  const name = field({id: 'tokenName', label: 'Token name', required: true,
    hint: 'What the script is, e.g. nightly-report; 1 to 64 letters, digits and +=,.@_-'});
  name.input.dataset.field = 'name';
  const days = field({id: 'tokenDays', label: 'Expires in (days)', type: 'number', value: '30', inputmode: 'numeric',
    hint: '1 to 365.'});
  days.input.dataset.field = 'expiresInDays';
  const owner = field({id: 'tokenOwner', label: 'Owner (optional)',
    hint: 'Leave empty for yourself. Only the root credential makes tokens for another user.'});
  owner.input.dataset.field = 'owner';
  const scope = h('fieldset', {class: 'field', id: 'tokenScope', 'aria-describedby': 'tokenScope-hint tokenScope-error'},
    h('legend', {}, 'Scope: the policies the token may use'),
    policies.map(p => {
      const id = 'scope-' + p.name.replace(/[^A-Za-z0-9_-]/g, '_');
      return h('label', {class: 'check', for: id},
        h('input', {type: 'checkbox', id, value: p.arn, 'data-scope': p.name}), ' ', p.name,
        p.kind === 'customer' ? h('span', {class: 'muted'}, ' (customer)') : null);
    }),
    h('p', {class: 'hint', id: 'tokenScope-hint'}, 'The token may do what both its owner\'s policies and these allow.'),
    h('p', {class: 'field-error', id: 'tokenScope-error', role: 'alert'}));
  scope.dataset.field = 'policyArns';
  const message = h('p', {class: 'message', role: 'alert', id: 'new-token-message'});
  const submit = h('button', {type: 'submit', id: 'new-token-create'}, 'Create token');
  const form = h('form', {class: 'stack', id: 'new-token-form', novalidate: true}, name.wrap, scope, days.wrap, owner.wrap,
    message, h('div', {class: 'actions'}, submit));
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearErrors(form);
    message.textContent = '';
    const body = {
      name: name.input.value.trim(),
      policyArns: [...scope.querySelectorAll('input:checked')].map(i => i.value),
    };
    if (!/^[A-Za-z0-9+=,.@_-]{1,64}$/.test(body.name)) {
      showError(form, {field: 'name', message: 'Expected 1 to 64 letters, digits and +=,.@_-'}, message);
      return;
    }
    if (body.policyArns.length === 0) {
      showError(form, {field: 'policyArns', message: 'Choose at least one policy.'}, message);
      return;
    }
    const n = Number(days.input.value);
    if (!Number.isInteger(n) || n < 1 || n > 365) {
      showError(form, {field: 'expiresInDays', message: 'Expected a whole number of days from 1 to 365.'}, message);
      return;
    }
    body.expiresInDays = n;
    if (owner.input.value.trim()) body.owner = owner.input.value.trim();
    submit.disabled = true;
    try {
      await reload(created(await post('/api/v1/admin/tokens', body)));
    } catch (e) {
      submit.disabled = false;
      showError(form, e, message);
    }
  });
  return form;
}

export async function render(params, ctx, notice) {
  const [tokens, policies] = await Promise.allSettled([get('/api/v1/admin/tokens'), get('/api/v1/admin/iam/policies')]);
  const ended = [tokens, policies].find(r => r.status === 'rejected' && r.reason.status === 401);
  if (ended) throw ended.reason;
  if (tokens.status === 'rejected') throw tokens.reason;
  const reload = n => render(params, ctx, n);
  const message = h('p', {class: 'message', role: 'alert', id: 'tokens-message'});
  show(
    h('h1', {}, 'Admin tokens'),
    notice || null,
    message,
    h('p', {class: 'muted'}, 'Bearer tokens for scripts that call the admin API (Authorization: Bearer apt_...): '
      + 'scoped to policies, expiring, revocable. An expired token is listed until the next token is created.'),
    tokens.value.length === 0
      ? h('p', {id: 'tokens-empty'}, 'No tokens.')
      : h('table', {id: 'tokens-table'},
          h('thead', {}, h('tr', {}, ['Name', 'Owner', 'Scope', 'Created', 'Expires', 'Expired', 'Actions']
            .map(t => h('th', {scope: 'col'}, t)))),
          h('tbody', {}, tokens.value.map(t => tokenRow(t, reload, message)))),
    h('section', {'data-needs': 'admin:CreateToken'}, h('h2', {}, 'New token'),
      policies.status === 'fulfilled'
        ? newTokenForm(policies.value, reload)
        : h('p', {class: 'message error'}, 'The policies cannot be listed, so no scope can be chosen: ' + policies.reason.message)));
}
