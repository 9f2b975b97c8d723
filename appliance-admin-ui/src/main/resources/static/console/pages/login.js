// Login with an access key and its secret (the root credential or an IAM user's key). Shows why a login failed next
// to the field at fault, the lockout with the time it ends, and how to find the root credentials on a first start.
import {post, showError, clearErrors} from '../api.js';
import {h, show, field} from '../dom.js';

export const title = 'Log in';

export async function render(params, ctx) {
  const key = field({id: 'accessKey', label: 'Access key', autocomplete: 'username', required: true});
  const secret = field({id: 'secretKey', label: 'Secret key', type: 'password', autocomplete: 'current-password', required: true});
  const message = h('p', {class: 'message', id: 'login-message', role: 'alert'});
  const notice = params.query === 'expired'
    ? h('p', {class: 'message warn', id: 'login-notice'}, 'Your session ended (30 minutes without activity). Log in again.')
    : params.query === 'loggedOut'
      ? h('p', {class: 'message ok', id: 'login-notice'}, 'You are logged out.')
      : null;
  const submit = h('button', {type: 'submit', id: 'login-submit'}, 'Log in');
  const form = h('form', {class: 'stack', id: 'login-form', novalidate: true}, key.wrap, secret.wrap, message, h('div', {class: 'actions'}, submit));
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearErrors(form);
    message.textContent = '';
    message.className = 'message';
    submit.disabled = true;
    try {
      const who = await post('/api/v1/session', {accessKey: key.input.value.trim(), secretKey: secret.input.value});
      ctx.loggedIn(who);
    } catch (e) {
      secret.input.value = '';
      if (e.code === 'LockedOut') {
        const until = new Date(Date.now() + (e.retryAfter || 0) * 1000);
        e.message = 'Too many failed logins: this access key and this address are locked out until '
          + until.toLocaleTimeString() + ' (in about ' + Math.ceil((e.retryAfter || 0) / 60) + ' min). '
          + 'Even the right secret is refused until then.';
        e.field = null;
      } else if (e.code === 'InvalidCredentials') {
        e.message = 'The access key or the secret key is wrong.';
      }
      showError(form, e, message);
    } finally {
      submit.disabled = false;
    }
  });
  show(h('section', {class: 'login', 'aria-labelledby': 'login-title'},
    h('h1', {id: 'login-title'}, 'Log in to the appliance'),
    notice,
    form,
    h('h2', {}, 'First start?'),
    h('p', {class: 'muted', id: 'first-start'},
      'Log in as root with the access key and secret key that ', h('code', {}, './appliance server'),
      ' printed at its first start (or the values of APPLIANCE_ROOT_USER and APPLIANCE_ROOT_PASSWORD if you set them). '
      + 'They are kept encrypted; the key to them is under ~/.config/appliance. '
      + 'Then create an IAM user with the admin policy and use its key for daily work.')));
  key.input.focus();
}
