// Policies: the built-in ones, read only, each with its document; the customer managed ones, with theirs, editing one
// in place (checked as a new one is), and deleting
// one (refused while attached or named in an admin token's scope: the page says where to look); a new customer policy
// from a JSON editor that is checked in the page before anything is sent (the error under the editor names the line)
// and then by the appliance's policy parser (its problem shown in the same place).
import {get, post, put, del, showError, clearErrors} from '../api.js';
import {h, show, field} from '../dom.js';
import {confirmButton, fail} from './identity-parts.js';

export const title = 'Policies';

const EXAMPLE = `{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Effect": "Allow",
      "Action": ["s3:ListBucket", "s3:GetObject"],
      "Resource": ["arn:aws:s3:::BUCKET", "arn:aws:s3:::BUCKET/*"]
    }
  ]
}`;

/**
 * Where JSON text stops being JSON: the offset of the first character a JSON reader cannot accept. JSON.parse says
 * why, but not always where (its message differs by browser version), so the place is found here.
 */
export function jsonErrorOffset(text) {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const fail = () => {
    throw i;
  };
  const literal = word => {
    if (text.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = () => {
    i++; // the opening quote
    while (i < text.length && text[i] !== '"') {
      if (text[i] < ' ') fail();
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] || 'x')) fail();
      }
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail();
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail();
      }
    } else if (c === '"') {
      string();
    } else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else {
      const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
      if (!m) fail();
      i += m[0].length;
    }
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
    return -1;
  } catch (at) {
    if (typeof at !== 'number') throw at;
    return at;
  }
}

/** "Line 3, column 5: ..." for text that JSON.parse refuses; null for JSON. */
export function jsonProblem(text) {
  try {
    JSON.parse(text);
    return null;
  } catch (e) {
    const at = Math.min(Math.max(jsonErrorOffset(text), 0), text.length);
    const before = text.slice(0, at).split('\n');
    const line = before.length;
    const column = before[before.length - 1].length + 1;
    // the browser's own wording without its offset: the line and column say where
    const why = e.message.replace(/ in JSON at position \d+( \(line \d+ column \d+\))?/, '');
    return {line, column, at, message: 'Line ' + line + ', column ' + column + ': not valid JSON (' + why + ').'};
  }
}

function pretty(documentText) {
  try {
    return JSON.stringify(JSON.parse(documentText), null, 2);
  } catch (e) {
    return documentText || ''; // shown as stored
  }
}

function documentView(id, documentText) {
  return h('details', {'data-document': id}, h('summary', {}, 'Document'), h('pre', {class: 'doc'}, pretty(documentText)));
}

/**
 * Checks the editor's JSON in the page: on a mistake shows "Line L, column C: ..." under the editor, puts the cursor
 * there and answers false (nothing is to be sent).
 */
function checkJson(form, editor, message) {
  const text = editor.value;
  const problem = jsonProblem(text);
  if (!problem) return true;
  showError(form, {field: 'document', message: problem.message}, message);
  editor.setSelectionRange(problem.at, Math.min(problem.at + 1, text.length));
  return false;
}

/** A customer policy's document edited in place: a row under the policy's, with Save and Cancel. */
function editRow(p, reload, close) {
  const id = 'edit-policy-' + p.name.replace(/[^A-Za-z0-9_-]/g, '_');
  const editor = h('textarea', {id, name: id, rows: 14, spellcheck: 'false', class: 'code',
    'aria-describedby': id + '-error'});
  editor.value = pretty(p.document);
  editor.dataset.field = 'document';
  const message = h('p', {class: 'message', role: 'alert', id: id + '-message'});
  const save = h('button', {type: 'submit', id: id + '-save'}, 'Save policy');
  const cancel = h('button', {type: 'button', class: 'secondary', id: id + '-cancel'}, 'Cancel');
  const form = h('form', {class: 'stack wide', id: id + '-form', novalidate: true, 'data-needs': 'admin:UpdatePolicy'},
    h('div', {class: 'field'},
      h('label', {for: id}, 'Document of ' + p.name + ' (JSON)'),
      editor,
      h('p', {class: 'field-error', id: id + '-error', role: 'alert'})),
    message,
    h('div', {class: 'actions'}, save, cancel));
  cancel.addEventListener('click', close);
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearErrors(form);
    message.textContent = '';
    message.className = 'message';
    if (!checkJson(form, editor, message)) return;
    save.disabled = true;
    try {
      await put('/api/v1/admin/iam/policies/' + encodeURIComponent(p.name), {document: editor.value});
      await reload(h('p', {class: 'message ok', role: 'status', id: 'policies-notice'}, 'Policy ' + p.name + ' saved.'));
    } catch (e) {
      save.disabled = false;
      if (e.status !== 401) showError(form, e, message);
    }
  });
  return {row: h('tr', {'data-policy-editor': p.name}, h('td', {colspan: 4}, form)), editor};
}

function customerRow(p, reload, message) {
  const slug = p.name.replace(/[^A-Za-z0-9_-]/g, '_');
  const edit = h('button', {type: 'button', class: 'secondary', id: 'edit-policy-' + slug + '-open',
    'data-needs': 'admin:UpdatePolicy', 'aria-expanded': 'false'}, 'Edit');
  let open = null;
  const close = () => {
    open.row.remove();
    open = null;
    edit.setAttribute('aria-expanded', 'false');
    edit.focus();
  };
  edit.addEventListener('click', () => {
    if (open) return close();
    open = editRow(p, reload, close);
    row.after(open.row);
    edit.setAttribute('aria-expanded', 'true');
    open.editor.focus();
  });
  const remove = confirmButton({
    id: 'delete-policy-' + slug, label: 'Delete', needs: 'admin:DeletePolicy',
    question: 'Delete the policy ' + p.name + '?', yes: 'Yes, delete the policy',
    act: async () => {
      try {
        await del('/api/v1/admin/iam/policies/' + encodeURIComponent(p.name));
        await reload(h('p', {class: 'message ok', role: 'status', id: 'policies-notice'}, 'Policy ' + p.name + ' deleted.'));
      } catch (e) {
        fail(message, e, e.code === 'DeleteConflict'
          ? 'Policy ' + p.name + ' not deleted: it is still attached to a user or a group, or named in an admin '
            + 'token\'s scope. Detach it on the Users and Groups pages (or revoke the token) first'
          : 'Policy ' + p.name);
      }
    },
  });
  const row = h('tr', {'data-policy': p.name},
    h('th', {scope: 'row'}, p.name),
    h('td', {}, h('code', {}, p.arn)),
    h('td', {}, documentView(p.name, p.document)),
    h('td', {}, h('div', {class: 'actions'}, edit, remove)));
  return row;
}

function newPolicyForm(reload) {
  const name = field({id: 'policyName', label: 'Policy name', required: true, hint: '1 to 128 letters, digits and +=,.@_-'});
  name.input.dataset.field = 'name';
  const editor = h('textarea', {id: 'policyDocument', name: 'policyDocument', rows: 14, spellcheck: 'false', class: 'code',
    'aria-describedby': 'policyDocument-hint policyDocument-error'}, EXAMPLE);
  editor.dataset.field = 'document';
  const documentField = h('div', {class: 'field'},
    h('label', {for: 'policyDocument'}, 'Policy document (JSON)'),
    editor,
    h('p', {class: 'hint', id: 'policyDocument-hint'}, 'An IAM policy: Version and Statement, each statement with '
      + 'Effect, Action and Resource. Actions are S3 actions (s3:GetObject, ...) or appliance actions (admin:ListUsers, ...).'),
    h('p', {class: 'field-error', id: 'policyDocument-error', role: 'alert'}));
  const message = h('p', {class: 'message', role: 'alert', id: 'new-policy-message'});
  const submit = h('button', {type: 'submit', id: 'new-policy-create'}, 'Create policy');
  const form = h('form', {class: 'stack wide', id: 'new-policy-form', novalidate: true}, name.wrap, documentField, message,
    h('div', {class: 'actions'}, submit));
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearErrors(form);
    message.textContent = '';
    const policyName = name.input.value.trim();
    if (!/^[A-Za-z0-9+=,.@_-]{1,128}$/.test(policyName)) {
      showError(form, {field: 'name', message: 'Expected 1 to 128 letters, digits and +=,.@_-'}, message);
      return;
    }
    if (!checkJson(form, editor, message)) return;
    submit.disabled = true;
    try {
      await post('/api/v1/admin/iam/policies', {name: policyName, document: editor.value});
      await reload(h('p', {class: 'message ok', role: 'status', id: 'policies-notice'}, 'Policy ' + policyName + ' created.'));
    } catch (e) {
      submit.disabled = false;
      showError(form, e, message);
    }
  });
  return form;
}

export async function render(params, ctx, notice) {
  const policies = await get('/api/v1/admin/iam/policies');
  const reload = n => render(params, ctx, n);
  const message = h('p', {class: 'message', role: 'alert', id: 'policies-message'});
  const builtin = policies.filter(p => p.kind === 'builtin');
  const customer = policies.filter(p => p.kind === 'customer');
  show(
    h('h1', {}, 'Policies'),
    notice || null,
    message,
    h('p', {class: 'muted'}, 'Attach policies to users (Users page) or groups (Groups page); an admin token\'s scope '
      + 'names policies too.'),
    h('h2', {}, 'Built-in policies (read only)'),
    h('table', {id: 'builtin-policies'},
      h('thead', {}, h('tr', {}, ['Name', 'ARN', 'Document'].map(t => h('th', {scope: 'col'}, t)))),
      h('tbody', {}, builtin.map(p => h('tr', {'data-policy': p.name},
        h('th', {scope: 'row'}, p.name),
        h('td', {}, h('code', {}, p.arn)),
        h('td', {}, p.document ? documentView(p.name, p.document) : 'not shown by this appliance'))))),
    h('h2', {}, 'Customer policies'),
    customer.length === 0
      ? h('p', {id: 'customer-empty'}, 'No customer policies yet.')
      : h('table', {id: 'customer-policies'},
          h('thead', {}, h('tr', {}, ['Name', 'ARN', 'Document', 'Actions'].map(t => h('th', {scope: 'col'}, t)))),
          h('tbody', {}, customer.map(p => customerRow(p, reload, message)))),
    h('section', {'data-needs': 'admin:CreatePolicy'}, h('h2', {}, 'New customer policy'), newPolicyForm(reload)));
}
