// What the bucket detail's small forms share: a labelled control (input, select or textarea) with its hint and error
// line, and a save that shows the appliance's refusal under the field it names (or in the form's message line).
import {showError, clearErrors} from '../api.js';
import {h} from '../dom.js';

/**
 * A labelled control: element is an input, select or textarea whose id is set; field (optional) is the API's name for
 * it in a problem's "field". The hint and the error line are tied to it by aria-describedby.
 */
export function control(element, label, {hint, field} = {}) {
  const id = element.id;
  if (field) element.dataset.field = field;
  element.setAttribute('aria-describedby', [hint ? id + '-hint' : null, id + '-error'].filter(Boolean).join(' '));
  return h('div', {class: 'field'},
    h('label', {for: id}, label),
    element,
    hint ? h('p', {class: 'hint', id: id + '-hint'}, hint) : null,
    h('p', {class: 'field-error', id: id + '-error', role: 'alert'}));
}

export function input(id, value, attrs = {}) {
  return h('input', {id, name: id, type: 'text', value: value === null || value === undefined ? '' : String(value), ...attrs});
}

export function select(id, options, selected) {
  const el = h('select', {id, name: id}, options.map(([value, label]) => h('option', {value}, label)));
  el.value = selected === null || selected === undefined ? '' : String(selected);
  return el;
}

/**
 * A whole number from a text input: null when empty, else the number when it is a whole number from min to max;
 * otherwise throws an error naming the input's API field, shown under it before anything is sent.
 */
export function wholeNumber(el, what, min = 1, max = Number.MAX_SAFE_INTEGER) {
  const text = el.value.trim();
  if (text === '') return null;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw {field: el.dataset.field || el.id, message: 'Expected ' + what + ', a whole number from ' + min
      + (max === Number.MAX_SAFE_INTEGER ? ' up' : ' to ' + max) + '.'};
  }
  return n;
}

/**
 * A small form (one section of the bucket page): its controls, a message line and a submit button. onSave(event)
 * sends the change and answers the text to show when it is done; a thrown error (a problem from the API, or one of
 * wholeNumber's) is shown under its field; explain(error) may reword it first (return the error). editNeeds: the
 * actions its save takes; without them the form is shown read only (data-edit-needs).
 */
export function sectionForm(id, children, {submitLabel, onSave, explain = e => e, editNeeds = 'admin:UpdateBucket'}) {
  const message = h('p', {class: 'message', role: 'alert', id: id + '-message'});
  const submit = h('button', {type: 'submit', id: id + '-save'}, submitLabel || 'Save');
  const form = h('form', {class: 'stack', id, novalidate: true, 'data-edit-needs': editNeeds}, children, message, h('div', {class: 'actions'}, submit));
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearErrors(form);
    message.textContent = '';
    message.className = 'message';
    submit.disabled = true;
    try {
      const done = await onSave();
      if (done) {
        message.className = 'message ok';
        message.textContent = done;
      }
    } catch (e) {
      if (e.status === 401) return; // on the way to the login page
      showError(form, explain(e), message);
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

/** The settings route's problems carry no field; their message starts with it ("quotaBytes: ..."). */
export function fieldFromMessage(error) {
  if (!error.field && typeof error.message === 'string') {
    const m = /^([A-Za-z][A-Za-z0-9.[\]]*): /.exec(error.message);
    if (m) error.field = m[1];
  }
  return error;
}

/** A server message as a sentence of its own: capital first letter, one full stop. */
export function sentence(text) {
  const t = String(text).trim().replace(/\.+$/, '');
  return t.charAt(0).toUpperCase() + t.slice(1) + '.';
}
