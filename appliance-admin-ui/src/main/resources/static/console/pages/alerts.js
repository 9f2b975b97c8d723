// Alerts (health and version-explosion alerts, docs/alerts.md): each with its cause, remedy and figures; acknowledge
// an active one; with ?all, the recently cleared ones too.
import {get, post} from '../api.js';
import {h, show, time, count, bytes} from '../dom.js';

export const title = 'Alerts';

/** A duration in seconds as the largest whole unit an operator reads at a glance. */
function span(seconds) {
  if (seconds < 3600) return Math.max(1, Math.round(seconds / 60)) + ' min';
  if (seconds < 172800) return Math.round(seconds / 3600) + ' h';
  return Math.round(seconds / 86400) + ' days';
}

/** The numbers behind the alert: the worst keys, the rate, and where it leads in one horizon if nothing changes. */
function projection(f) {
  if (!f) return null;
  const rows = [
    ['Keys over ' + count(f.threshold) + ' versions', count(f.keysOverThreshold)],
    ['New versions per hour', count(Math.round(f.versionsPerHour))],
    ['Identical re-writes in the last hour', count(f.identicalLastHour) + ' of ' + count(f.newVersionsLastHour)],
    ['Bounded by lifecycle', f.boundingRule ? f.boundingRule + ' (about ' + count(f.boundPerKey) + ' versions per key)' : 'no rule bounds it'],
    ['Worst key in ' + span(f.horizonSeconds), count(f.projectedWorstKeyVersions) + ' versions (cap ' + count(f.maxVersionsPerKey) + ')'],
    ['Bucket in ' + span(f.horizonSeconds), count(f.projectedBucketVersions) + ' versions, ' + bytes(f.projectedBucketMetadataBytes) + ' of metadata'],
    ['Worst key reaches the cap', f.secondsToCap < 0 ? 'not at this rate' : 'in about ' + span(f.secondsToCap)],
  ];
  return h('div', {'data-col': 'projection'},
    h('h3', {}, 'Projection'),
    h('dl', {}, rows.flatMap(([label, value]) => [h('dt', {}, label), h('dd', {}, value)])),
    f.worstKeys.length === 0 ? null : h('table', {},
      h('caption', {}, 'Keys with the most versions'),
      h('thead', {}, h('tr', {}, h('th', {scope: 'col'}, 'Key'), h('th', {scope: 'col'}, 'Versions'), h('th', {scope: 'col'}, 'Per hour'))),
      h('tbody', {}, f.worstKeys.map(k => h('tr', {'data-key': k.key},
        h('td', {}, k.key), h('td', {}, count(k.versions)), h('td', {}, count(Math.round(k.versionsPerHour))))))));
}

/** A health alert's check: its id is CODE:check (a bucket's alert names its bucket instead). */
function checkOf(alert) {
  return alert.id.slice(alert.id.indexOf(':') + 1);
}

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
  return h('article', {class: 'card', 'data-alert': alert.id, 'data-bucket': alert.bucket || '', 'data-check': alert.bucket ? '' : checkOf(alert)},
    h('h2', {class: alert.severity === 'CRITICAL' ? 'state-bad' : 'state-warn'}, alert.severity + ' · ' + alert.code
      + (alert.bucket ? ' · bucket ' + alert.bucket : ' · check ' + checkOf(alert))),
    h('p', {}, h('strong', {}, alert.summary)),
    alert.bucket ? null : h('p', {}, h('a', {href: '#/checks'}, 'System checks: what was measured, and Run now')),
    h('dl', {},
      h('dt', {}, 'State'), h('dd', {'data-col': 'state'}, state),
      h('dt', {}, 'Raised'), h('dd', {}, time(alert.raisedAt) + (alert.timesRaised > 1 ? ' (' + count(alert.timesRaised) + ' times)' : '')),
      h('dt', {}, 'Updated'), h('dd', {}, time(alert.updatedAt))),
    h('h3', {}, 'Cause'), h('p', {'data-col': 'cause'}, alert.cause),
    h('h3', {}, 'Remedy'), h('p', {'data-col': 'remedy'}, alert.remedy),
    projection(alert.figures),
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
