// Drives and erasure sets: each drive's state (and why it is out of service), space as the scanner last measured it,
// calls and mean latency since start, error counts, and the fill of a replaced drive with its progress, rate and ETA.
import {get} from '../api.js';
import {h, show, bytes, count, time} from '../dom.js';

export const title = 'Drives';

const STATE_CLASS = {online: 'state-ok', healing: 'state-warn', offline: 'state-bad', faulty: 'state-bad'};

function eta(seconds) {
  if (seconds < 0) return 'unknown';
  if (seconds < 120) return seconds + ' s';
  if (seconds < 7200) return Math.round(seconds / 60) + ' min';
  return (seconds / 3600).toFixed(1) + ' h';
}

function heal(d) {
  const x = d.heal;
  if (!x) return '—';
  const total = Math.max(x.objectsEstimated, x.objectsScanned);
  return h('div', {},
    h('div', {}, x.state + ': ' + count(x.objectsHealed) + ' healed of ' + count(x.objectsScanned) + ' scanned'
      + (x.objectsFailed ? ', ' + count(x.objectsFailed) + ' failed' : '')),
    total > 0 ? h('progress', {max: total, value: x.objectsScanned, 'aria-label': 'Fill of drive ' + d.set + '/' + d.index}) : null,
    x.state === 'healing' ? h('div', {class: 'muted'}, count(Math.round(x.objectsPerSecond)) + ' objects/s, '
      + bytes(x.bytesPerSecond) + '/s, ETA ' + eta(x.etaSeconds)) : null);
}

export async function render(params, ctx) {
  const [sets, drives] = await Promise.all([get('/api/v1/admin/sets'), get('/api/v1/admin/drives')]);
  show(
    h('div', {class: 'actions'},
      h('h1', {}, 'Drives'),
      h('button', {type: 'button', class: 'secondary', id: 'drives-refresh', onclick: () => ctx.refresh()}, 'Refresh')),
    h('ul', {id: 'sets'}, sets.sets.map(s => h('li', {'data-set': s.index},
      'Set ' + s.index + ': ' + s.online + ' of ' + s.drives + ' drives in service, EC ' + s.dataShards + '+' + s.parityShards
      + '; reads need ' + s.readQuorum + ' (', h('span', {class: s.readQuorumHeld ? 'state-ok' : 'state-bad'}, s.readQuorumHeld ? 'held' : 'LOST'),
      '), writes need ' + s.writeQuorum + ' (', h('span', {class: s.writeQuorumHeld ? 'state-ok' : 'state-bad'}, s.writeQuorumHeld ? 'held' : 'LOST'), ')'))),
    h('table', {id: 'drives-table'},
      h('thead', {}, h('tr', {}, ['Drive', 'Path', 'State', 'Space used', 'Calls', 'Mean latency', 'Errors: I/O, slow, stalled', 'Fill (replaced drive)']
        .map(t => h('th', {scope: 'col'}, t)))),
      h('tbody', {}, drives.drives.map(d => h('tr', {'data-drive': d.set + '/' + d.index},
        h('th', {scope: 'row'}, d.set + '/' + d.index),
        h('td', {}, h('code', {}, d.path)),
        h('td', {'data-col': 'state'}, h('span', {class: STATE_CLASS[d.state] || ''}, d.state), d.problem ? h('div', {class: 'muted'}, d.problem) : null),
        h('td', {}, d.space.totalBytes === null ? 'not measured yet' : bytes(d.space.usedBytes) + ' of ' + bytes(d.space.totalBytes)),
        h('td', {class: 'num'}, count(d.latency.calls)),
        h('td', {class: 'num'}, d.latency.meanMillisSinceStart === null ? '—' : d.latency.meanMillisSinceStart.toFixed(1) + ' ms'),
        h('td', {class: 'num', 'data-col': 'errors'}, count(d.errors.ioErrors) + ', ' + count(d.errors.slowCalls) + ', ' + count(d.errors.stalledCalls)),
        h('td', {}, heal(d)))))),
    h('p', {class: 'muted'}, 'Latency is the mean since start; space is as the scanner last measured it'
      + (drives.drives[0] && drives.drives[0].space.measuredAt ? ' (' + time(drives.drives[0].space.measuredAt) + ')' : '') + '.'));
}
