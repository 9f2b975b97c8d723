// The console's shell: hash routes (#/dashboard, #/buckets, #/buckets/NAME, ...), the nav bar, and the session. Every
// page is a module exporting render(params, session); a page asks the API for what it shows, nothing is cached here.
import {get, del, whenUnauthenticated} from './api.js';
import {show, h, setAllowed, allows, applyNeeds, focusContentOnShow} from './dom.js';
import * as login from './pages/login.js';
import * as dashboard from './pages/dashboard.js';
import * as buckets from './pages/buckets.js';
import * as bucket from './pages/bucket.js';
import * as veeam from './pages/veeam.js';
import * as newBucket from './pages/new-bucket.js';
import * as users from './pages/users.js';
import * as alerts from './pages/alerts.js';
import * as drives from './pages/drives.js';
import * as audit from './pages/audit.js';
import * as settings from './pages/settings.js';
import * as checks from './pages/checks.js';
import * as user from './pages/user.js';
import * as groups from './pages/groups.js';
import * as policies from './pages/policies.js';
import * as tokens from './pages/tokens.js';
import * as objects from './pages/objects.js';

/** Route patterns, first match wins; ":name" captures one decoded path segment. */
const ROUTES = [
  ['login', login],
  ['dashboard', dashboard],
  ['buckets', buckets],
  ['buckets/:bucket', bucket],
  ['buckets/:bucket/objects', objects],
  ['new-bucket', newBucket],
  ['veeam', veeam],
  ['users', users],
  ['users/:user', user],
  ['groups', groups],
  ['policies', policies],
  ['tokens', tokens],
  ['alerts', alerts],
  ['drives', drives],
  ['audit', audit],
  ['settings', settings],
  ['checks', checks],
];

let session = null;

function match(path) {
  const parts = path.split('/').filter(Boolean);
  for (const [pattern, page] of ROUTES) {
    const want = pattern.split('/');
    if (want.length !== parts.length) continue;
    const params = {};
    if (want.every((w, i) => (w.startsWith(':') ? ((params[w.slice(1)] = decodeURIComponent(parts[i])), true) : w === parts[i]))) {
      return {page, params, name: want[0]};
    }
  }
  return null;
}

function markNav(name) {
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.dataset.route === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

function showShell(visible) {
  document.getElementById('shell-header').hidden = !visible;
  document.getElementById('who').textContent = visible && session ? 'Signed in as ' + session.name : '';
  // the controls this session may use (data-needs): nav entries are hidden, so a later login shows them again
  setAllowed(session && session.allowed);
  for (const el of document.querySelectorAll('#shell-header [data-needs]')) el.hidden = !allows(el.dataset.needs);
  nudgeRoot(visible);
}

/**
 * Root signed in and no admin user able to sign in yet: asks for one (everyday work under a named user, and root can
 * then be turned off for S3). Asked on every page, so the note goes once the user exists.
 */
async function nudgeRoot(visible) {
  const nudge = document.getElementById('root-nudge');
  if (!visible || !session || session.name !== 'root') {
    nudge.hidden = true;
    return;
  }
  try {
    const root = await get('/api/v1/admin/iam/root');
    nudge.replaceChildren('You are signed in with the root credential. ',
      h('a', {href: '#/users'}, 'Create an admin user'),
      ' (a user with the built-in admin policy and an access key) for everyday work; root can then be turned off for S3.');
    nudge.hidden = root.adminUserReady;
  } catch (e) {
    nudge.hidden = true;
  }
}

/** Asks the appliance who this browser is: null when there is no session (or it timed out). */
async function whoAmI() {
  try {
    return await get('/api/v1/session');
  } catch (e) {
    if (e.status === 401) return null;
    throw e;
  }
}

async function route() {
  const started = performance.now();
  const [path, query] = (location.hash || '#/dashboard').slice(1).split('?');
  const found = match(path);
  if (!found) {
    location.replace('#/dashboard');
    return;
  }
  if (found.name !== 'login' && !session) {
    session = await whoAmI();
    if (!session) {
      location.replace('#/login');
      return;
    }
  }
  showShell(found.name !== 'login');
  markNav(found.name);
  document.title = (found.page.title || found.name) + ' · Appliance console';
  try {
    await found.page.render({...found.params, query: query || ''}, {
      session,
      // shows the page again, errors handled as on any navigation (a 401 goes to the login page)
      refresh: route,
      loggedIn(who) {
        session = who;
        location.hash = '#/dashboard';
      },
    });
    // how long the route took from the navigation to its page shown, for the render benchmark (docs/benchmarks.md)
    // (the last one only: an open console must not pile up an entry per navigation)
    performance.clearMeasures('console:rendered');
    performance.measure('console:rendered', {start: started, detail: found.name});
  } catch (e) {
    if (e.status === 401) return; // whenUnauthenticated moved to the login already
    show(h('h1', {}, found.page.title || found.name), h('p', {class: 'message error', role: 'alert'}, e.message));
  }
}

// a session that ends (30 minutes idle, logged out in another tab) sends the browser back to the login page
whenUnauthenticated(() => {
  session = null;
  if (!location.hash.startsWith('#/login')) location.hash = '#/login?expired';
});

document.getElementById('logout').addEventListener('click', async () => {
  try {
    await del('/api/v1/session');
  } finally {
    session = null;
    location.hash = '#/login?loggedOut';
  }
});

// what a page adds after it is shown (a reload of its list, a confirmation) gets data-needs applied too
new MutationObserver(changes => {
  for (const change of changes) {
    for (const node of change.addedNodes) {
      if (node instanceof Element && node.isConnected && !applyNeeds(node)) node.remove();
    }
  }
}).observe(document.getElementById('main'), {childList: true, subtree: true});

window.addEventListener('hashchange', () => {
  focusContentOnShow(true);
  route();
});
// "Skip to content" moves focus to the page's content; followed as a link it would change the hash (the route)
document.querySelector('.skip-link').addEventListener('click', event => {
  event.preventDefault();
  document.getElementById('main').focus();
});
route();
