// The dashboard: capacity (with the days-to-full forecast), contents, drives, recent S3 traffic, alerts and the retention
// clock, from the admin API's own figures. Each card stands alone: a figure the caller may not read, or the appliance
// has not measured yet, says so; none is made up. The traffic card refreshes itself while the dashboard is shown.
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

const SVG = 'http://www.w3.org/2000/svg';
const GRAPH_WIDTH = 300;
const GRAPH_HEIGHT = 90;
const HISTORY = '/api/v1/admin/metrics/history';

/** The traffic card's refresh timer: one at a time, stopped when the dashboard is left. */
let refresher = null;

function stopRefreshing() {
  if (refresher !== null) clearInterval(refresher);
  refresher = null;
}

/** As h(), for SVG elements (attributes only set, never parsed). */
function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function perSecond(n) {
  return n >= 100 ? String(Math.round(n)) : n >= 10 ? n.toFixed(1) : n.toFixed(n === 0 ? 0 : 2);
}

function millis(n) {
  if (n === null || n === undefined) return '—';
  return n >= 1000 ? (n / 1000).toFixed(1) + ' s' : (n >= 10 ? Math.round(n) : n.toFixed(1)) + ' ms';
}

function span(hours) {
  if (hours < 2) return Math.round(hours * 60) + ' minutes';
  if (hours < 48) return hours.toFixed(1).replace(/\.0$/, '') + ' hours';
  return (hours / 24).toFixed(1).replace(/\.0$/, '') + ' days';
}

/**
 * One line graph: a polyline per series over the points' times (a null value breaks its line; a lone value is a dot), scaled to the largest
 * value shown, which is printed as the top of the scale. Screen readers get the title and the summary.
 */
function graph(id, title, points, series, format, summary) {
  const times = points.map(p => Date.parse(p.time));
  const first = times[0];
  const width = Math.max(1, times[times.length - 1] - first);
  let top = 0;
  for (const s of series) for (const p of points) if (p[s.key] !== null && p[s.key] > top) top = p[s.key];
  const x = t => (points.length === 1 ? GRAPH_WIDTH : ((t - first) / width) * GRAPH_WIDTH).toFixed(1);
  const y = v => (top === 0 ? GRAPH_HEIGHT : GRAPH_HEIGHT - (v / top) * (GRAPH_HEIGHT - 4)).toFixed(1);
  const lines = [];
  for (const s of series) {
    let run = [];
    const flush = () => {
      if (run.length > 1) lines.push(svg('polyline', {class: 'graph-line ' + s.cls, 'data-series': s.key, points: run.join(' ')}));
      if (run.length === 1) { // a value between two gaps: a dot, or it would not show
        const [cx, cy] = run[0].split(',');
        lines.push(svg('circle', {class: 'graph-dot ' + s.cls, 'data-series': s.key, cx, cy, r: 2}));
      }
      run = [];
    };
    points.forEach((p, i) => (p[s.key] === null ? flush() : run.push(x(times[i]) + ',' + y(p[s.key]))));
    flush();
  }
  const minutes = Math.max(1, Math.round(width / 60000));
  return h('figure', {class: 'graph', id},
    svg('svg', {viewBox: '0 0 ' + GRAPH_WIDTH + ' ' + GRAPH_HEIGHT, preserveAspectRatio: 'none', role: 'img',
      'aria-labelledby': id + '-title ' + id + '-desc', 'data-points': points.length, id: id + '-svg'},
    svg('title', {id: id + '-title'}, title),
    svg('desc', {id: id + '-desc'}, summary),
    svg('line', {class: 'graph-axis', x1: 0, y1: GRAPH_HEIGHT - 0.5, x2: GRAPH_WIDTH, y2: GRAPH_HEIGHT - 0.5}),
    lines),
    h('figcaption', {},
      h('span', {class: 'graph-title'}, title),
      h('span', {class: 'muted'}, ' · scale to ' + format(top) + ' · last ' + minutes + ' min'),
      h('span', {class: 'graph-legend'}, series.map(s => h('span', {class: 'legend ' + s.cls}, s.name)))));
}

/** The traffic card's body from the history: three graphs, each with a text line of its latest figures. */
function traffic(history) {
  const points = history.points;
  if (points.length === 0) {
    return [h('p', {class: 'muted', id: 'traffic-pending'},
      'Collecting: the first point is measured ' + history.intervalSeconds + ' s after the start, then one every '
        + history.intervalSeconds + ' s.')];
  }
  const last = points[points.length - 1];
  const peak = key => points.reduce((m, p) => Math.max(m, p[key] || 0), 0);
  const requests = 'Latest ' + perSecond(last.requestsPerSecond) + ' requests/s (' + perSecond(last.errorsPerSecond)
    + ' errors/s, ' + perSecond(last.rejectedPerSecond) + ' refused/s); peak ' + perSecond(peak('requestsPerSecond')) + '/s.';
  const throughput = 'Latest in ' + bytes(last.bytesInPerSecond) + '/s, out ' + bytes(last.bytesOutPerSecond)
    + '/s; peak in ' + bytes(peak('bytesInPerSecond')) + '/s, out ' + bytes(peak('bytesOutPerSecond')) + '/s.';
  const latency = last.latencyMsMean === null
    ? 'No request answered in the latest interval.'
    : 'Latest mean ' + millis(last.latencyMsMean) + ', 99th percentile at most '
      + (last.latencyMsP99 === null ? 'over 60 s' : millis(last.latencyMsP99)) + '.';
  const latest = (id, text, attrs) => h('p', {class: 'graph-latest', id, ...attrs}, text);
  return [h('div', {class: 'graphs'},
    h('div', {}, graph('traffic-requests', 'S3 requests per second', points, [
      {key: 'requestsPerSecond', name: 'all', cls: 'series-a'},
      {key: 'errorsPerSecond', name: 'errors (5xx)', cls: 'series-bad'},
      {key: 'rejectedPerSecond', name: 'refused (4xx)', cls: 'series-b'},
    ], perSecond, requests),
    latest('traffic-requests-latest', requests, {'data-value': last.requestsPerSecond})),
    h('div', {}, graph('traffic-throughput', 'S3 throughput (bytes per second)', points, [
      {key: 'bytesInPerSecond', name: 'in', cls: 'series-a'},
      {key: 'bytesOutPerSecond', name: 'out', cls: 'series-b'},
    ], n => bytes(n) + '/s', throughput),
    latest('traffic-throughput-latest', throughput, {'data-in': last.bytesInPerSecond, 'data-out': last.bytesOutPerSecond})),
    h('div', {}, graph('traffic-latency', 'S3 request latency', points, [
      {key: 'latencyMsMean', name: 'mean', cls: 'series-a'},
      {key: 'latencyMsP99', name: '99th percentile (bucket bound)', cls: 'series-b'},
    ], millis, latency),
    latest('traffic-latency-latest', latency, {'data-mean': last.latencyMsMean}))),
    h('p', {class: 'muted', id: 'traffic-updated'}, 'Kept in memory since the appliance started; one point every '
      + history.intervalSeconds + ' s; updated ' + time(last.time) + '.'),
  ];
}

/** The forecast line of the Capacity card. */
function forecast(history) {
  if (history.status === 'rejected') {
    const e = history.reason;
    return h('p', {class: 'muted', id: 'capacity-forecast'}, e.status === 403
      ? 'Forecast: your policies do not allow reading metrics.' : 'Forecast not available: ' + e.message);
  }
  const f = history.value.forecast;
  if (f.daysToFull === 0) return h('p', {class: 'state-bad', id: 'capacity-forecast'}, f.reason);
  if (f.daysToFull === null) return h('p', {class: 'muted', id: 'capacity-forecast'}, 'Days to full: not known yet. ' + f.reason);
  const days = f.daysToFull < 1 ? 'less than a day' : 'about ' + Math.round(f.daysToFull) + ' day' + (Math.round(f.daysToFull) === 1 ? '' : 's');
  return h('p', {class: f.daysToFull < 30 ? 'state-warn' : null, id: 'capacity-forecast', 'data-days': f.daysToFull,
    title: f.reason}, 'Full in ' + days + ' (based on the last ' + span(f.basedOnHours) + ').');
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
  stopRefreshing();
  show(h('h1', {}, 'Dashboard'), h('p', {class: 'muted'}, 'Loading…'));
  const [status, sets, drives, alerts, buckets, history] = await Promise.allSettled([
    get('/api/v1/admin/status'),
    get('/api/v1/admin/sets'),
    get('/api/v1/admin/drives'),
    get('/api/v1/admin/alerts'),
    // the totals summed by the appliance: paging through every bucket here cost seconds with 10,000 buckets
    get('/api/v1/admin/usage'),
    get(HISTORY),
  ]);
  // the session ended: the shell is on its way to the login page, which this page must not overwrite
  const ended = [status, sets, drives, alerts, buckets, history].find(r => r.status === 'rejected' && r.reason.status === 401);
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
        ]), forecast(history), h('p', {class: 'muted'}, 'Usable is after erasure overhead; measured by the scanner at ' + time(c.measuredAt) + '.')]
      : [h('p', {class: 'muted', id: 'capacity-pending'}, 'Not measured yet: the background scanner measures the drives once a cycle.'),
        forecast(history)]);
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

  const trafficCard = card('traffic', 'S3 traffic', history.status === 'fulfilled'
    ? h('div', {id: 'traffic-body'}, traffic(history.value))
    : h('div', {id: 'traffic-body'}, refused(history)));
  trafficCard.classList.add('wide');

  let alertsSection;
  if (alerts.status === 'fulfilled') {
    const a = alerts.value;
    alertsSection = h('section', {id: 'alerts', 'aria-labelledby': 'alerts-title'},
      h('h2', {id: 'alerts-title'}, 'Open alerts (' + a.active + ', ' + a.unacknowledged + ' unacknowledged, ' + a.critical + ' critical)'),
      h('p', {}, h('a', {href: '#/alerts'}, 'All alerts, with their causes; acknowledge')),
      a.alerts.length === 0
        ? h('p', {class: 'state-ok', id: 'alerts-none'}, 'No open alerts.')
        : h('table', {},
            h('thead', {}, h('tr', {}, ['Severity', 'Bucket or check', 'Summary', 'Remedy', 'Raised'].map(t => h('th', {scope: 'col'}, t)))),
            h('tbody', {}, a.alerts.map(x => h('tr', {},
              h('td', {class: x.severity === 'CRITICAL' ? 'state-bad' : 'state-warn'}, x.severity),
              // a health alert (id CODE:check) names its check, linked to the System checks page
              h('td', {}, x.bucket || h('a', {href: '#/checks'}, x.id.slice(x.id.indexOf(':') + 1))),
              h('td', {}, x.summary),
              h('td', {}, x.remedy),
              h('td', {}, time(x.raisedAt)))))));
  } else {
    alertsSection = h('section', {id: 'alerts'}, h('h2', {}, 'Open alerts'), refused(alerts));
  }

  show(
    h('div', {class: 'actions'}, h('h1', {}, 'Dashboard'),
      h('button', {type: 'button', class: 'secondary', id: 'dashboard-refresh', onclick: () => ctx.refresh()}, 'Refresh')),
    h('div', {class: 'cards'}, capacityCard, contentsCard, drivesCard, clockCard, trafficCard),
    alertsSection);

  if (history.status === 'fulfilled') {
    // new points come once an interval; more often than that would only fetch the same ones
    const every = Math.min(10, Math.max(1, history.value.intervalSeconds)) * 1000;
    refresher = setInterval(() => refreshTraffic(trafficCard), every);
  }
}

/** Fetches the history again and redraws the traffic and the forecast; stops once the card is no longer shown. */
async function refreshTraffic(trafficCard) {
  if (!trafficCard.isConnected) {
    stopRefreshing();
    return;
  }
  let history;
  try {
    history = await get(HISTORY);
  } catch (e) {
    if (e.status === 401) {
      stopRefreshing(); // the session ended: the shell shows the login page
      return;
    }
    const body = document.getElementById('traffic-body');
    if (body) body.replaceChildren(refused({reason: e}));
    return;
  }
  if (!trafficCard.isConnected) return;
  document.getElementById('traffic-body').replaceChildren(...traffic(history));
  const line = document.getElementById('capacity-forecast');
  if (line) line.replaceWith(forecast({status: 'fulfilled', value: history}));
}

// leaving the dashboard stops its refresh at once (the timer would also notice the card is gone)
window.addEventListener('hashchange', () => {
  if (!location.hash.startsWith('#/dashboard')) stopRefreshing();
});
