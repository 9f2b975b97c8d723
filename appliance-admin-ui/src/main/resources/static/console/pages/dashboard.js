// The dashboard: capacity, contents, drives, alerts and the retention clock, from the admin API's own figures. Each
// card stands alone: a figure the caller may not read, or the appliance has not measured yet, says so; none is made up.
import {get} from '../api.js';
import {h, show, bytes, count, time} from '../dom.js';

export const title = 'Dashboard';

/**
 * Capacity as the engine counts it (PoolCapacity), from the scanner's last measurement of each drive: raw is every
 * drive's share of its file system; a set holds its smallest online share times its data shards, and adds nothing
 * with fewer online drives than data shards.
 */
function capacity(sets, drives) {
  const measured = drives.filter(d => d.space && d.space.totalBytes !== null);
  if (measured.length === 0) return null;
  const raw = measured.reduce((s, d) => s + d.space.totalBytes, 0);
  const rawFree = measured.reduce((s, d) => s + d.space.freeBytes, 0);
  let usable = 0;
  let free = 0;
  for (const set of sets) {
    const online = measured.filter(d => d.set === set.index && d.online);
    if (online.length < set.dataShards) continue;
    usable += Math.min(...online.map(d => d.space.totalBytes)) * set.dataShards;
    free += Math.min(...online.map(d => d.space.freeBytes)) * set.dataShards;
  }
  return {raw, rawFree, usable, free, used: usable - free, measuredAt: measured[0].space.measuredAt};
}

function card(id, heading, ...body) {
  return h('section', {class: 'card', id, 'aria-labelledby': id + '-title'}, h('h2', {id: id + '-title'}, heading), ...body);
}

function figures(rows) {
  return h('dl', {}, rows.flatMap(([label, value, attrs]) => [h('dt', {}, label), h('dd', attrs || {}, value)]));
}

function refused(result) {
  const e = result.reason;
  return h('p', {class: 'muted'}, e.status === 403 ? 'Your policies do not allow reading this.' : 'Not available: ' + e.message);
}

export async function render(params, ctx) {
  show(h('h1', {}, 'Dashboard'), h('p', {class: 'muted'}, 'Loading…'));
  const [status, sets, drives, alerts, buckets] = await Promise.allSettled([
    get('/api/v1/admin/status'),
    get('/api/v1/admin/sets'),
    get('/api/v1/admin/drives'),
    get('/api/v1/admin/alerts'),
    // the totals summed by the appliance: paging through every bucket here cost seconds with 10,000 buckets
    get('/api/v1/admin/usage'),
  ]);
  // the session ended: the shell is on its way to the login page, which this page must not overwrite
  const ended = [status, sets, drives, alerts, buckets].find(r => r.status === 'rejected' && r.reason.status === 401);
  if (ended) throw ended.reason;

  let capacityCard;
  if (sets.status === 'fulfilled' && drives.status === 'fulfilled') {
    const c = capacity(sets.value.sets, drives.value.drives);
    capacityCard = card('capacity', 'Capacity', c
      ? [figures([
          ['Raw', bytes(c.raw), {id: 'capacity-raw'}],
          ['Usable', bytes(c.usable), {id: 'capacity-usable'}],
          ['Used', bytes(c.used), {id: 'capacity-used'}],
          ['Free', bytes(c.free), {id: 'capacity-free'}],
        ]), h('p', {class: 'muted'}, 'Usable is after erasure overhead; measured by the scanner at ' + time(c.measuredAt) + '.')]
      : h('p', {class: 'muted', id: 'capacity-pending'}, 'Not measured yet: the background scanner measures the drives once a cycle.'));
  } else {
    capacityCard = card('capacity', 'Capacity', refused(sets.status === 'rejected' ? sets : drives));
  }

  let contentsCard;
  if (buckets.status === 'fulfilled') {
    const t = buckets.value;
    contentsCard = card('contents', 'Contents', figures([
      ['Buckets', count(t.buckets), {id: 'contents-buckets'}],
      ['Objects', count(t.objects), {id: 'contents-objects'}],
      ['Versions', count(t.versions), {id: 'contents-versions'}],
      ['Delete markers', count(t.deleteMarkers), {id: 'contents-delete-markers'}],
      ['Stored', bytes(t.bytes), {id: 'contents-bytes'}],
    ]), h('p', {class: 'muted'}, 'As last counted per bucket (the scanner, or a recount within seconds of a write).'),
    t.uncounted ? h('p', {class: 'muted', id: 'contents-uncounted'}, count(t.uncounted) + ' bucket(s) not counted yet (the scanner counts each bucket every cycle).') : null);
  } else {
    contentsCard = card('contents', 'Contents', refused(buckets));
  }

  let drivesCard;
  if (drives.status === 'fulfilled') {
    const list = drives.value.drives;
    const by = state => list.filter(d => d.state === state).length;
    const offline = by('offline') + by('faulty');
    drivesCard = card('drives', 'Drives', figures([
      ['Online', count(by('online')), {id: 'drives-online', class: 'state-ok'}],
      ['Offline or faulty', count(offline), {id: 'drives-offline', class: offline ? 'state-bad' : null}],
      ['Healing', count(by('healing')), {id: 'drives-healing', class: by('healing') ? 'state-warn' : null}],
    ]), sets.status === 'fulfilled'
      ? h('p', {class: 'muted'}, sets.value.sets.map(s => 'Set ' + s.index + ': ' + s.online + '/' + s.drives + ' in service, write quorum '
          + (s.writeQuorumHeld ? 'held' : 'LOST')).join('; '))
      : null);
  } else {
    drivesCard = card('drives', 'Drives', refused(drives));
  }

  let clockCard;
  if (status.status === 'fulfilled') {
    const c = status.value.retentionClock;
    clockCard = card('clock', 'Retention clock', figures([
      ['State', c.healthy ? 'healthy' : 'attention', {id: 'clock-state', class: c.healthy ? 'state-ok' : 'state-bad'}],
      ['Trusted time', time(c.trustedTime)],
      ['System time', time(c.systemTime)],
      ['System clock believed', c.systemClockBelieved ? 'yes' : 'no'],
      ['Host NTP', String(c.ntp).toLowerCase()],
    ]), c.healthy ? null : h('p', {class: 'muted', id: 'clock-why'}, !c.systemClockBelieved
      ? 'The system clock is not believed (it jumped); retention runs on the trusted time. See docs/object-lock.md.'
      : 'The host reports its clock as not synchronized (NTP): retention dates depend on it. Check chrony or timesyncd.'));
  } else {
    clockCard = card('clock', 'Retention clock', refused(status));
  }

  let alertsSection;
  if (alerts.status === 'fulfilled') {
    const a = alerts.value;
    alertsSection = h('section', {id: 'alerts', 'aria-labelledby': 'alerts-title'},
      h('h2', {id: 'alerts-title'}, 'Open alerts (' + a.active + ', ' + a.unacknowledged + ' unacknowledged, ' + a.critical + ' critical)'),
      h('p', {}, h('a', {href: '#/alerts'}, 'All alerts, with their causes; acknowledge')),
      a.alerts.length === 0
        ? h('p', {class: 'state-ok', id: 'alerts-none'}, 'No open alerts.')
        : h('table', {},
            h('thead', {}, h('tr', {}, ['Severity', 'Bucket', 'Summary', 'Remedy', 'Raised'].map(t => h('th', {scope: 'col'}, t)))),
            h('tbody', {}, a.alerts.map(x => h('tr', {},
              h('td', {class: x.severity === 'CRITICAL' ? 'state-bad' : 'state-warn'}, x.severity),
              h('td', {}, x.bucket || '—'),
              h('td', {}, x.summary),
              h('td', {}, x.remedy),
              h('td', {}, time(x.raisedAt)))))));
  } else {
    alertsSection = h('section', {id: 'alerts'}, h('h2', {}, 'Open alerts'), refused(alerts));
  }

  show(
    h('div', {class: 'actions'}, h('h1', {}, 'Dashboard'),
      h('button', {type: 'button', class: 'secondary', id: 'dashboard-refresh', onclick: () => ctx.refresh()}, 'Refresh')),
    h('div', {class: 'cards'}, capacityCard, contentsCard, drivesCard, clockCard),
    alertsSection);
}
