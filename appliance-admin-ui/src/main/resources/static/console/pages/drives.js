// Drives and erasure sets: each drive's state (and why it is out of service), space as the scanner last measured it,
// calls and mean latency since start, error counts, and the fill of a replaced drive with its progress, rate and ETA.
// Below, every heal since start (replaced drives' fills and heals of a bucket or prefix) with a progress bar, rate and
// ETA, and a form that starts the heal of a bucket or prefix. While a heal runs, the figures refresh every 2 s.
import {get, post, showError, clearErrors} from '../api.js';
import {h, show, field, bytes, count, time} from '../dom.js';

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
    x.state === 'healing' ? h('div', {class: 'muted'}, rate(x.objectsPerSecond) + ', '
      + bytes(x.bytesPerSecond) + '/s, ETA ' + eta(x.etaSeconds)) : null);
}

const REFRESH_MILLIS = 2000;
const ACTIVE = new Set(['queued', 'healing', 'running']);
const HEAL_STATE_CLASS = {queued: 'state-warn', healing: 'state-warn', running: 'state-warn', done: 'state-ok',
  stopped: 'state-bad', failed: 'state-bad', cancelled: 'state-bad'};
let timer = null;

function rate(perSecond) {
  return (perSecond >= 10 ? count(Math.round(perSecond)) : Number(perSecond).toFixed(1)) + ' objects/s';
}

/**
 * One heal: its state, a progress bar (indeterminate while the total is unknown, full once ended), the objects and
 * bytes so far, rate and ETA (or when it finished), and the newest failures by name.
 */
function healItem(id, title, x, failures) {
  const active = ACTIVE.has(x.state);
  const total = Math.max(x.objectsEstimated, x.objectsScanned);
  const bar = !active
    ? h('progress', {max: 1, value: x.state === 'done' ? 1 : 0, 'aria-label': 'Progress of ' + title})
    : total > 0 && x.objectsEstimated > 0
      ? h('progress', {max: total, value: x.objectsScanned, 'aria-label': 'Progress of ' + title})
      : h('progress', {'aria-label': 'Progress of ' + title});
  const of = x.objectsEstimated > 0 ? ' of about ' + count(x.objectsEstimated) : '';
  return h('li', {'data-heal': id, 'data-state': x.state},
    h('div', {class: 'heal-title'}, h('strong', {}, title), ': ',
      h('span', {class: HEAL_STATE_CLASS[x.state] || '', 'data-col': 'heal-state'}, x.state)),
    bar,
    h('div', {'data-col': 'heal-figures'}, count(x.objectsScanned) + ' objects scanned' + of + ': '
      + count(x.objectsHealed) + ' healed, ' + count(x.objectsFailed) + ' failed; ' + bytes(x.bytesHealed) + ' written'),
    h('div', {class: 'muted', 'data-col': 'heal-rate'}, rate(x.objectsPerSecond) + ', ' + bytes(x.bytesPerSecond) + '/s'
      + (active ? ', ETA ' + eta(x.etaSeconds) : x.finished ? '; finished ' + time(x.finished) : '')
      + '; started ' + time(x.started)),
    x.detail ? h('div', {class: 'muted'}, x.detail) : null,
    failures.length ? h('ul', {class: 'heal-failures'}, failures.slice(-5).map(f => h('li', {}, h('code', {}, f.name), ': ' + f.reason))) : null);
}

function healsSection(drives, bucketHeals) {
  const items = [];
  for (const d of drives.drives) {
    if (d.heal) items.push(healItem('drive-' + d.set + '/' + d.index, 'Fill of drive ' + d.set + '/' + d.index + ' (' + d.path + ')', d.heal, d.heal.failures));
  }
  for (const b of bucketHeals.heals) {
    const name = b.bucket + '/' + b.prefix;
    items.push(healItem('bucket-' + b.id, 'Heal of ' + (b.prefix ? 'prefix ' + name : 'bucket ' + b.bucket),
      b, b.failures.map(f => ({name: b.bucket + '/' + f.key, reason: f.reason}))));
  }
  return h('section', {id: 'heals', 'aria-labelledby': 'heals-title'},
    h('h2', {id: 'heals-title'}, 'Heals'),
    items.length ? h('ul', {class: 'heal-list', id: 'heal-list'}, items) : h('p', {class: 'muted', id: 'heals-none'}, 'No heal since start.'));
}

function anyActive(drives, bucketHeals) {
  return drives.drives.some(d => d.heal && ACTIVE.has(d.heal.state)) || bucketHeals.heals.some(b => ACTIVE.has(b.state));
}

/** The part of the page that refreshes: sets, drives and heals (the form below keeps what was typed). */
async function paint(live) {
  clearTimeout(timer);
  const [sets, drives, bucketHeals] = await Promise.all(
    [get('/api/v1/admin/sets'), get('/api/v1/admin/drives'), get('/api/v1/admin/heal/buckets')]);
  live.replaceChildren(
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
        h('td', {'data-col': 'fill'}, heal(d)))))),
    h('p', {class: 'muted'}, 'Latency is the mean since start; space is as the scanner last measured it'
      + (drives.drives[0] && drives.drives[0].space.measuredAt ? ' (' + time(drives.drives[0].space.measuredAt) + ')' : '') + '.'),
    healsSection(drives, bucketHeals));
  if (anyActive(drives, bucketHeals)) {
    // only while this page shows: another page's render replaces the live part, which ends the refreshing
    timer = setTimeout(() => {
      if (live.isConnected) paint(live).catch(() => {});
    }, REFRESH_MILLIS);
  }
}

function healForm(live) {
  const bucket = field({id: 'heal-bucket', label: 'Bucket', required: true, autocomplete: 'off',
    hint: 'Every version of every object in it (or under the prefix) is checked shard by shard and repaired.'});
  bucket.input.dataset.field = 'bucket';
  bucket.input.setAttribute('list', 'heal-bucket-names');
  const names = h('datalist', {id: 'heal-bucket-names'});
  // suggestions only (the name can be typed), fetched when the field is first used: the bucket list reads every
  // listed bucket's usage, work a page only looked at (or shown to an auditor, without the form) need not cause
  bucket.input.addEventListener('focus', () => {
    get('/api/v1/admin/buckets?limit=1000').then(page => names.replaceChildren(...page.buckets.map(b => h('option', {value: b.name}))))
      .catch(() => {});
  }, {once: true});
  const prefix = field({id: 'heal-prefix', label: 'Prefix (optional)', autocomplete: 'off',
    hint: 'Only keys starting with it, e.g. vm1/. Leave empty for the whole bucket.'});
  prefix.input.dataset.field = 'prefix';
  const message = h('p', {class: 'message', role: 'status', id: 'bucket-heal-message'});
  const submit = h('button', {type: 'submit', id: 'bucket-heal-start'}, 'Start heal');
  const form = h('form', {class: 'stack', id: 'bucket-heal-form', novalidate: true, 'aria-labelledby': 'bucket-heal-title'},
    bucket.wrap, names, prefix.wrap, message, h('div', {class: 'actions'}, submit));
  form.addEventListener('submit', async event => {
    event.preventDefault();
    clearErrors(form);
    message.textContent = '';
    message.className = 'message';
    const body = {bucket: bucket.input.value.trim(), prefix: prefix.input.value};
    if (!body.bucket) {
      showError(form, {field: 'bucket', message: 'Name the bucket to heal.'}, message);
      return;
    }
    submit.disabled = true;
    try {
      const started = await post('/api/v1/admin/heal/buckets', body);
      message.className = 'message ok';
      message.textContent = 'Heal ' + started.id + ' of ' + started.bucket + '/' + started.prefix + ': ' + started.state + '.';
      await paint(live);
    } catch (e) {
      showError(form, e, message);
    } finally {
      submit.disabled = false;
    }
  });
  return h('section', {id: 'bucket-heal', 'aria-labelledby': 'bucket-heal-title', 'data-needs': 'admin:StartHeal'},
    h('h2', {id: 'bucket-heal-title'}, 'Heal a bucket or prefix'), form);
}

export async function render(params, ctx) {
  const live = h('div', {id: 'drives-live'});
  await paint(live);
  show(
    h('div', {class: 'actions'},
      h('h1', {}, 'Drives'),
      h('button', {type: 'button', class: 'secondary', id: 'drives-refresh', onclick: () => ctx.refresh()}, 'Refresh')),
    live,
    healForm(live));
}
