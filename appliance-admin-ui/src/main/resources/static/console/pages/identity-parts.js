// Pieces the identity pages (user, groups, policies, admin tokens) share: policy names and pickers, a confirmation
// step before a destructive action, and the once-only secret box.
import {h, copyButton} from '../dom.js';

export const BUILT_IN_PREFIX = 'arn:aws:iam::aws:policy/';

/** "readonly" for a built-in ARN, "read-backups" for a customer one: the last path segment. */
export function policyName(arn) {
  return String(arn).replace(/^arn:aws:iam::[^:]*:policy\//, '');
}

/**
 * A labelled select of policies by ARN, built-in ones first, leaving out those in `except` (already attached);
 * null when nothing is left to choose.
 */
export function policyPicker(id, label, policies, except = []) {
  const taken = new Set(except);
  const options = kind => policies.filter(p => p.kind === kind && !taken.has(p.arn))
    .map(p => h('option', {value: p.arn}, p.name));
  const builtin = options('builtin');
  const customer = options('customer');
  if (builtin.length + customer.length === 0) return null;
  const select = h('select', {id, name: id, 'aria-describedby': id + '-error'},
    builtin.length ? h('optgroup', {label: 'Built-in'}, builtin) : null,
    customer.length ? h('optgroup', {label: 'Customer'}, customer) : null);
  select.dataset.field = 'policyArn';
  const wrap = h('div', {class: 'field inline'}, h('label', {for: id}, label), select,
    h('p', {class: 'field-error', id: id + '-error', role: 'alert'}));
  return {wrap, select};
}

/**
 * A button that asks before it acts: the first click shows the question with "Yes" and "Cancel" in its place, so a
 * key or a user is never deleted by one stray click. `act` runs on "Yes"; what it throws is the caller's to show.
 * `needs`: the actions it takes (data-needs), so that it is left out for whoever may not.
 */
export function confirmButton({id, label, question, yes, act, needs}) {
  const holder = h('span', {class: 'confirm', 'data-needs': needs});
  const button = h('button', {type: 'button', class: 'secondary danger', id}, label);
  const ask = () => {
    const confirm = h('button', {type: 'button', class: 'danger', id: id + '-yes'}, yes || 'Yes, ' + label.toLowerCase());
    const cancel = h('button', {type: 'button', class: 'secondary', id: id + '-cancel'}, 'Cancel');
    confirm.addEventListener('click', async () => {
      confirm.disabled = true;
      cancel.disabled = true;
      try {
        await act();
      } finally {
        confirm.disabled = false;
        cancel.disabled = false;
      }
    });
    cancel.addEventListener('click', () => {
      holder.replaceChildren(button);
      button.focus();
    });
    holder.replaceChildren(h('span', {role: 'alert', class: 'question'}, question), ' ', confirm, ' ', cancel);
    confirm.focus();
  };
  button.addEventListener('click', ask);
  holder.append(button);
  return holder;
}

/** A secret shown once: a warning, then label, value and a Copy button per row ([label, id, value]). */
export function secretBox(id, heading, rows, warning) {
  return h('section', {id, 'aria-labelledby': id + '-title'},
    h('h2', {id: id + '-title'}, heading),
    h('p', {class: 'message warn', role: 'status'}, warning
      || 'The secret is shown only now: store it before you leave this page. It cannot be shown again.'),
    h('div', {class: 'secret-box'}, rows.flatMap(([label, rowId, value]) =>
      [h('span', {}, label), h('code', {id: rowId}, value), copyButton(rowId, value)])));
}

/** Shows a failed action in the page's message line. */
export function fail(message, error, prefix) {
  message.className = 'message error';
  message.textContent = (prefix ? prefix + ': ' : '') + error.message;
}
