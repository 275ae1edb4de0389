// The one client of the REST API: Bearer token from sessionStorage, errors as ApiError, and a 401
// (expired or revoked token) sends the user back to sign-in.
const TOKEN_KEY = "automations.token";
const SPACE_KEY = "automations.space";

export class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || { code: "http_" + status, message: `HTTP ${status}`, details: [] };
    super(error.message);
    this.status = status;
    this.code = error.code;
    this.details = error.details || [];
  }
}

let onUnauthorized = () => {};
export function setUnauthorizedHandler(handler) {
  onUnauthorized = handler;
}

// The token stopped working (a 401, or a live stream closed because it was revoked or expired): forget
// it and go back to sign-in. `used` is the token the failing request carried: an answer to a request
// sent before signing out (or in again) says nothing about the session that holds now.
export function tokenEnded(used) {
  if (!session.token || used !== session.token) return;
  session.token = null;
  onUnauthorized();
}

export const session = {
  get token() {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  set token(value) {
    if (value) sessionStorage.setItem(TOKEN_KEY, value);
    else sessionStorage.removeItem(TOKEN_KEY);
  },
  get space() {
    return sessionStorage.getItem(SPACE_KEY);
  },
  set space(value) {
    if (value) sessionStorage.setItem(SPACE_KEY, value);
    else sessionStorage.removeItem(SPACE_KEY);
  },
};

export function headers(extra = {}) {
  const all = { Accept: "application/json", ...extra };
  if (session.token) all.Authorization = `Bearer ${session.token}`;
  return all;
}

// A FormData body goes as multipart (the browser writes its boundary); anything else as JSON.
export async function api(method, path, body, extraHeaders = {}) {
  const init = { method, headers: headers(extraHeaders) };
  if (body instanceof FormData) {
    init.body = body;
  } else if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const used = session.token;
  const response = await fetch(`/api/v1${path}`, init);
  const text = await response.text();
  const data = parseBody(text, response.ok);
  if (response.status === 401) tokenEnded(used);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// An error answered by something in front of the API (a proxy refusing a large body) may not be
// JSON: it still becomes an ApiError with its status rather than a parse failure.
function parseBody(text, ok) {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch (error) {
    if (ok) throw error;
    return null;
  }
}

export const spacePath = (suffix = "") => `/spaces/${session.space}${suffix}`;
