// The engine API as the page sees it. The token (embedded mode only) lives in
// this module's memory for the life of the tab: never in storage, a cookie or a URL.
const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content ?? "";

export const mode = meta("svc-mode") === "panel" ? "panel" : "embedded";
export const apiBase = meta("svc-api");

let token = null;
const authListeners = new Set();

export const setToken = (value) => {
  token = value ? value.trim() : null;
};
export const onAuthRequired = (fn) => {
  authListeners.add(fn);
  return () => authListeners.delete(fn);
};
const authRequired = () => authListeners.forEach((fn) => fn());

export class ApiError extends Error {
  constructor(status, body) {
    const message = (body && (body.error || body.message)) || `HTTP ${status}`;
    super(typeof message === "string" ? message : JSON.stringify(message));
    this.status = status;
    this.body = body;
    this.code = body && body.code;
  }
}

export function authHeaders(extra = {}) {
  const headers = { ...extra };
  if (token) headers["X-Agent-Token"] = token;
  if (mode === "embedded") headers["x-svc-request-source"] = "web_ui";
  return headers;
}

export async function api(path, { method = "GET", body, headers = {}, signal, quiet } = {}) {
  const init = { method, headers: authHeaders(headers), signal, cache: "no-store", credentials: "omit" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(apiBase + path, init);
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!response.ok) {
    if (response.status === 401 && !quiet) authRequired();
    throw new ApiError(response.status, data);
  }
  return data;
}

// Whether a route exists: a capability page shows "not available" for a 404 or 405.
export const isAbsent = (error) =>
  error instanceof ApiError && (error.status === 404 || error.status === 405) &&
  (!error.code || error.code === "NOT_FOUND" || error.code === "METHOD_NOT_ALLOWED");

export const enc = encodeURIComponent;
