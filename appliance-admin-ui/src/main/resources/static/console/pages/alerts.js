// Alerts (today: the version-explosion alerts, docs/alerts.md): each with its cause, remedy and figures; acknowledge
// an active one; with ?all, the recently cleared ones too.
import {get, post} from '../api.js';
import {h, show, time, count} from '../dom.js';

export const title = 'Alerts';

function alertCard(alert, ctx, message) {
  const active = alert.state === 'active';
  const ack = active && !alert.acknowledged
    ? h('button', {type: 'button', class: 'secondary', 'data-ack': alert.id, 'data-needs': 'admin:AcknowledgeAlert'}, 'Acknowledge')
    : null;
  if (ack) {
    ack.addEventListener('click', async () => {
      ack.disabled = true;
      try {
        await post('/api/v1/admin/alerts/' + encodeURIComponent(alert.id) + '/ack');
        await ctx.refresh();
      } catch (e) {
        ack.disabled = false;
        message.className = 'message error';
        message.textContent = e.message;
      }
    });
  }
  const state = active ? (alert.acknowledged ? 'active, acknowledged ' + time(alert.acknowledgedAt) : 'active') : 'cleared ' + time(alert.clearedAt);
  return h('article', {class: 'card', 'data-alert': alert.id, 'data-bucket': alert.bucket || ''},
    h('h2', {class: alert.severity === 'CRITICAL' ? 'state-bad' : 'state-warn'}, alert.severity + ' · ' + alert.code + (alert.bucket ? ' · bucket ' + alert.bucket : '')),
    h('p', {}, h('strong', {}, alert.summary)),
    h('dl', {},
      h('dt', {}, 'State'), h('dd', {'data-col': 'state'}, state),
      h('dt', {}, 'Raised'), h('dd', {}, time(alert.raisedAt) + (alert.timesRaised > 1 ? ' (' + count(alert.timesRaised) + ' times)' : '')),
      h('dt', {}, 'Updated'), h('dd', {}, time(alert.updatedAt))),
    h('h3', {}, 'Cause'), h('p', {'data-col': 'cause'}, alert.cause),
    h('h3', {}, 'Remedy'), h('p', {'data-col': 'remedy'}, alert.remedy),
    ack ? h('div', {class: 'actions'}, ack) : null);
}

export async function render(params, ctx) {
  const all = params.query === 'all';
  const list = await get('/api/v1/admin/alerts' + (all ? '?all=true' : ''));
  const message = h('p', {class: 'message', role: 'alert', id: 'alerts-message'});
  show(
    h('div', {class: 'actions'},
      h('h1', {}, 'Alerts'),
      h('button', {type: 'button', class: 'secondary', id: 'alerts-refresh', onclick: () => ctx.refresh()}, 'Refresh'),
      all ? h('a', {href: '#/alerts'}, 'Active only') : h('a', {href: '#/alerts?all', id: 'alerts-all'}, 'Include recently cleared')),
    h('p', {id: 'alerts-counts'}, count(list.active) + ' active, ' + count(list.unacknowledged) + ' unacknowledged, '
      + count(list.critical) + ' critical.'),
    message,
    list.alerts.length === 0
      ? h('p', {class: 'state-ok', id: 'alerts-none'}, all ? 'No alerts, active or recently cleared.' : 'No open alerts.')
      : h('div', {class: 'alert-list'}, list.alerts.map(a => alertCard(a, ctx, message))));
}
