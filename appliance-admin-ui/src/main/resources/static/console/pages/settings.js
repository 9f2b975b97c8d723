// Settings: every appliance.* option with its description, default, value in force and whether a change needs a
// restart (read only: options are set in the --config file, flags or environment, docs/operations.md).
import {get} from '../api.js';
import {h, show} from '../dom.js';

export const title = 'Settings';

export async function render() {
  const config = await get('/api/v1/admin/config');
  show(
    h('h1', {}, 'Settings'),
    h('p', {class: 'muted'}, 'The options in force. Change them in the --config file, a flag or the environment, then restart '
      + '(docs/operations.md, Configuration). Secrets show only whether they are set.'),
    h('table', {id: 'settings-table'},
      h('thead', {}, h('tr', {}, ['Option', 'Value', 'Default', 'Needs restart', 'Description'].map(t => h('th', {scope: 'col'}, t)))),
      h('tbody', {}, config.options.map(o => h('tr', {'data-option': o.name},
        h('th', {scope: 'row'}, h('code', {}, o.name)),
        h('td', {'data-col': 'value'}, o.value === null ? '(not set)' : o.value),
        h('td', {}, o.defaultValue === null ? '—' : o.defaultValue),
        h('td', {}, o.restartRequired ? 'yes' : 'no'),
        h('td', {}, o.description || ''))))));
}
