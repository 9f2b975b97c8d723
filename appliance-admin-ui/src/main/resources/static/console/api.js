// The console's one way to the admin API: same-origin requests with the session cookie, the CSRF token echoed on
// every change, and RFC 9457 problems turned into ApiError (code, detail, field) for the page to show by its field.

const SAFE = new Set(['GET', 'HEAD']);

/** A refused or failed request: the problem's fields, plus Retry-After (seconds) when the answer had one. */
export class ApiError extends Error {
  constructor(status, problem, retryAfter) {
    super(problem.detail || problem.message || problem.title || ('HTTP ' + status));
    this.status = status;
    this.code = problem.code || problem.title || String(status);
    this.field = problem.field || null;
    this.retryAfter = retryAfter;
    if (status === 403 && this.code === 'AccessDenied') {
      this.message = 'Your policies do not allow this (' + this.message + ').';
    }
  }
}

let onUnauthenticated = () => {};

/** Called when a request comes back 401 outside the login: the session ended (timeout, logout elsewhere). */
export function whenUnauthenticated(callback) {
  onUnauthenticated = callback;
}

function csrfCookie() {
  const pair = document.cookie.split('; ').find(c => c.startsWith('XSRF-TOKEN='));
  return pair ? decodeURIComponent(pair.slice('XSRF-TOKEN='.length)) : null;
}

/** The CSRF token, fetched when the cookie is not there yet (before the login, and after it: a login renews it). */
async function csrfToken() {
  const cookie = csrfCookie();
  if (cookie) return cookie;
  const answer = await fetch('/api/v1/session/csrf', {credentials: 'same-origin', cache: 'no-store'});
  if (!answer.ok) throw new ApiError(answer.status, {detail: 'The console could not fetch a CSRF token.'});
  return (await answer.json()).token;
}

async function send(method, path, body) {
  const headers = {Accept: 'application/json, application/problem+json'};
  // a file (upload) goes as it is, streamed by the browser; anything else as JSON
  const raw = body instanceof Blob;
  if (body !== undefined) headers['Content-Type'] = raw ? (body.type || 'application/octet-stream') : 'application/json';
  if (!SAFE.has(method)) headers['X-XSRF-TOKEN'] = await csrfToken();
  return fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    cache: 'no-store',
    body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
  });
}

/**
 * One request; resolves to the parsed JSON answer (null for 204), or rejects with ApiError. A change refused for its
 * CSRF token is retried once with a fresh token (the token changes at login and logout).
 */
export async function api(method, path, body) {
  let answer = await send(method, path, body);
  if (answer.status === 403 && !SAFE.has(method)) {
    const problem = await answer.clone().json().catch(() => ({}));
    if (problem.code === 'InvalidCsrfToken') {
      document.cookie = 'XSRF-TOKEN=; Max-Age=0; path=/';
      answer = await send(method, path, body);
    }
  }
  if (answer.status === 204) return null;
  const text = await answer.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch (e) {
    json = {detail: text};
  }
  if (!answer.ok) {
    const retry = answer.headers.get('Retry-After');
    const error = new ApiError(answer.status, json || {}, retry === null ? null : Number(retry));
    if (answer.status === 401 && !path.startsWith('/api/v1/session')) onUnauthenticated(error);
    throw error;
  }
  return json;
}

export const get = path => api('GET', path);
export const post = (path, body) => api('POST', path, body === undefined ? {} : body);
export const put = (path, body) => api('PUT', path, body);
export const del = path => api('DELETE', path);
/** PUTs a file (a Blob) as the request body, with its own type. */
export const upload = (path, file) => api('PUT', path, file);

/**
 * Shows an error on a form: next to the input its "field" names when the form has one (matched by the input's
 * data-field, else its id), otherwise in the form's general message line.
 */
export function showError(form, error, general) {
  clearErrors(form);
  const name = error.field;
  const input = name ? form.querySelector(`[data-field="${CSS.escape(name)}"]`) || form.querySelector('#' + CSS.escape(name)) : null;
  if (input) {
    input.setAttribute('aria-invalid', 'true');
    const line = document.getElementById(input.id + '-error');
    if (line) {
      line.textContent = error.message;
      input.focus();
      return;
    }
  }
  general.className = 'message error';
  general.textContent = error.message;
}

export function clearErrors(form) {
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  for (const line of form.querySelectorAll('.field-error')) line.textContent = '';
}
