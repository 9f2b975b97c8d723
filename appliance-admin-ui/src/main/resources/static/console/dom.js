// Builds elements from data. Text is always set as text (never parsed as HTML), so names read from the API cannot
// inject markup; the CSP forbids inline scripts besides.

/** h('p', {class: 'x'}, 'text', child, ...): attributes starting with "on" take a listener. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (value === true) {
      el.setAttribute(name, '');
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

let focusOnShow = false;

/**
 * Whether show() moves focus to the content: after a navigation in the console (app.js turns it on), not when the
 * console is first loaded, so that there the first Tab lands on "Skip to content" and the nav, as on any page.
 */
export function focusContentOnShow(on) {
  focusOnShow = on;
}

/** Replaces the page content and moves focus to it, so keyboard and screen reader users start at the new page. */
export function show(...children) {
  const main = document.getElementById('main');
  main.replaceChildren(...children.flat().filter(Boolean).filter(c => !(c instanceof Element) || applyNeeds(c)));
  if (focusOnShow) main.focus();
}

/**
 * A labelled input with a hint and an error line wired to it by aria-describedby: the API's problem "field" names
 * the input whose error line shows the message.
 */
export function field({id, label, type = 'text', hint, value, autocomplete, required, inputmode, extra}) {
  const hintId = id + '-hint';
  const errorId = id + '-error';
  const input = h('input', {
    id, name: id, type, value, autocomplete, inputmode, required,
    'aria-describedby': [hint ? hintId : null, errorId].filter(Boolean).join(' '),
  });
  const wrap = h('div', {class: 'field'},
    h('label', {for: id}, label),
    input,
    hint ? h('p', {class: 'hint', id: hintId}, hint) : null,
    extra || null,
    h('p', {class: 'field-error', id: errorId, role: 'alert'}));
  return {wrap, input};
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export function bytes(n) {
  if (n === null || n === undefined) return 'not measured yet';
  let v = Number(n);
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return (u === 0 ? String(v) : v.toFixed(v >= 100 ? 0 : 1)) + ' ' + UNITS[u];
}

export function count(n) {
  return n === null || n === undefined ? '—' : Number(n).toLocaleString('en-US');
}

export function time(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return isNaN(d) ? iso : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC');
}

/** A button that copies text (a key, a secret) to the clipboard, or selects the element id's text to copy by hand. */
export function copyButton(id, text) {
  const button = h('button', {type: 'button', class: 'secondary', id: id + '-copy', 'aria-label': 'Copy ' + id}, 'Copy');
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = 'Copied';
    } catch (e) {
      // no clipboard (not a secure context): select the text so that Ctrl+C copies it
      const range = document.createRange();
      range.selectNodeContents(document.getElementById(id));
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      button.textContent = 'Selected: press Ctrl+C';
    }
  });
  return button;
}

// Controls by permission. An element rendered with data-needs="admin:CreateBucket admin:CreateUser" (space-separated:
// all are needed) is left out when the session's policies do not allow one of them (GET /api/v1/session lists the
// allowed actions). A form with data-edit-needs stays, read only (its buttons left out, its fields disabled, a textarea
// read only), where the values it shows are worth reading (a bucket's lifecycle rules, its policy). A convenience, not
// security: the appliance decides every request on its own.
let allowedActions = new Set();

/** The actions the session may perform (IAM names, e.g. admin:CreateBucket); none before the login. */
export function setAllowed(actions) {
  allowedActions = new Set((actions || []).map(a => String(a).toLowerCase()));
}

/** Whether the session may perform every action in `needs` (space-separated; IAM action names ignore case). */
export function allows(needs) {
  return String(needs || '').split(/\s+/).filter(Boolean).every(a => allowedActions.has(a.toLowerCase()));
}

/** Applies data-needs and data-edit-needs to `root` and what it holds; false when `root` itself is left out. */
export function applyNeeds(root) {
  for (const el of root.querySelectorAll('[data-needs]')) {
    if (!allows(el.dataset.needs)) el.remove();
  }
  for (const form of root.querySelectorAll('form[data-edit-needs]')) {
    if (!allows(form.dataset.editNeeds)) readOnly(form);
  }
  if (root.matches('[data-needs]') && !allows(root.dataset.needs)) {
    root.remove();
    return false;
  }
  if (root.matches('form[data-edit-needs]') && !allows(root.dataset.editNeeds)) readOnly(root);
  return true;
}

function readOnly(form) {
  for (const b of form.querySelectorAll('button, input[type="submit"], input[type="button"]')) b.remove();
  for (const c of form.querySelectorAll('input, select, textarea')) {
    if (c.tagName === 'TEXTAREA') c.readOnly = true;
    else c.disabled = true;
  }
  form.dataset.readOnly = 'true';
}
