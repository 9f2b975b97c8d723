// System checks: the appliance's health checks (GET /api/v1/health/checks; docs/console.md#system-checks): the
// installer's preflight rules against this host and the runtime state of drives, sets and the retention clock, as the
// last run measured them. Run now (admin:RunHealthChecks) runs them at once and shows the fresh result.
import {get, post} from '../api.js';
import {h, show, time, count} from '../dom.js';

export const title = 'System checks';

const RESULT_CLASS = {pass: 'state-ok', warn: 'state-warn', fail: 'state-bad'};
const ORDER = {fail: 0, warn: 1, pass: 2};

/** One table of checks, failures first, then warnings, then passes (the report's order within each). */
function table(id, caption, checks) {
  const rows = checks
    .map((c, i) => [c, i])
    .sort(([a, i], [b, j]) => (ORDER[a.result] - ORDER[b.result]) || (i - j))
    .map(([c]) => h('tr', {'data-check': c.id, 'data-result': c.result},
      h('td', {'data-col': 'result'}, h('span', {class: 'pill ' + RESULT_CLASS[c.result]}, c.result)),
      h('th', {scope: 'row', 'data-col': 'id'}, h('code', {}, c.id)),
      h('td', {'data-col': 'measured'}, c.measured),
      h('td', {'data-col': 'expected'}, c.expected),
      h('td', {'data-col': 'remediation'}, c.remediation || '—')));
  return h('table', {id, class: 'checks-table'},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ['Result', 'Check', 'Measured', 'Expected', 'What to do'].map(t => h('th', {scope: 'col'}, t)))),
    h('tbody', {}, rows));
}

function report(r) {
  const by = result => r.checks.filter(c => c.result === result).length;
  const runtime = r.checks.filter(c => c.source === 'runtime');
  const preflight = r.checks.filter(c => c.source === 'preflight');
  return h('div', {id: 'checks-report', 'data-result': r.result},
    h('p', {id: 'checks-summary'},
      'Checked ', h('time', {datetime: r.checkedAt, id: 'checks-time'}, time(r.checkedAt)), ' (preflight rules ', h('time', {datetime: r.preflightCheckedAt, id: 'checks-preflight-time'}, time(r.preflightCheckedAt)), '): ',
      h('span', {class: 'pill ' + RESULT_CLASS[r.result], id: 'checks-result'}, r.result), ' · ',
      count(by('fail')) + ' failed, ' + count(by('warn')) + ' warnings, ' + count(by('pass')) + ' passed.'),
    table('checks-runtime', 'Runtime: drives, erasure sets and the retention clock, as the engine sees them', runtime),
    table('checks-preflight', 'Preflight: this host and its drives against the installer\'s rules', preflight));
}

export async function render(params, ctx) {
  const live = h('div', {id: 'checks-live'}, report(await get('/api/v1/health/checks')));
  const message = h('p', {class: 'message', role: 'alert', id: 'checks-message'});
  const run = h('button', {type: 'button', id: 'checks-run', 'data-needs': 'admin:RunHealthChecks'}, 'Run now');
  run.addEventListener('click', async () => {
    run.disabled = true;
    run.textContent = 'Running…';
    message.className = 'message';
    message.textContent = '';
    try {
      live.replaceChildren(report(await post('/api/v1/health/checks/run')));
    } catch (e) {
      message.className = 'message error';
      message.textContent = e.message;
    } finally {
      run.disabled = false;
      run.textContent = 'Run now';
    }
  });
  show(
    h('div', {class: 'actions'},
      h('h1', {}, 'System checks'),
      h('button', {type: 'button', class: 'secondary', id: 'checks-refresh', onclick: () => ctx.refresh()}, 'Refresh'),
      run),
    h('p', {}, 'The appliance re-checks its drives and clock every 30 seconds and this host every 5 minutes (by default); a check that warns or fails also raises an ',
      h('a', {href: '#/alerts'}, 'alert'), '. Drive details are on the ', h('a', {href: '#/drives'}, 'Drives'), ' page.'),
    message,
    live);
}
