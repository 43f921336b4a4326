// Small shared pieces: data loading, status badges, errors, JSON, buttons.
import { html, useState, useEffect, useCallback, useRef } from "./vendor/htm-preact-3.1.1.js";
import { api, isAbsent } from "./api.js";

export { html };

// Load `path` (or run `loader`) now and whenever `reload()` is called.
export function useApi(path, deps = []) {
  const [state, setState] = useState({ loading: true, data: null, error: null });
  const tick = useRef(0);
  const load = useCallback(async () => {
    const mine = ++tick.current;
    try {
      const data = typeof path === "function" ? await path() : await api(path);
      if (mine === tick.current) setState({ loading: false, data, error: null });
    } catch (error) {
      if (mine === tick.current) setState({ loading: false, data: null, error });
    }
  }, deps);
  useEffect(() => {
    load();
  }, [load]);
  return { ...state, reload: load };
}

export function Loading({ what = "Loading" }) {
  return html`<p class="muted" role="status">${what}…</p>`;
}

export function ErrorBox({ error }) {
  if (!error) return null;
  return html`<p class="error" role="alert">${error.message || String(error)}${
    error.code ? html` <code>${error.code}</code>` : ""}</p>`;
}

export function NotAvailable({ route }) {
  return html`<p class="muted not-available" role="status">
    Not available: this engine has no <code>${route}</code> route.</p>`;
}

// A capability's own status route, or "not available" when the engine lacks it.
export function Loaded({ state, route, children }) {
  if (state.loading) return html`<${Loading} />`;
  if (state.error && isAbsent(state.error)) return html`<${NotAvailable} route=${route} />`;
  if (state.error) return html`<${ErrorBox} error=${state.error} />`;
  return children(state.data);
}

const GOOD = /^(ok|ready|completed|connected|healthy|active|enabled|approved|idle|live|succeeded|done|true)$/i;
const BAD = /^(error|failed|failure|denied|cancelled|canceled|timeout|disconnected|unhealthy|blocked|exhausted|rejected|false)$/i;
const WAIT = /^(pending|running|queued|waiting|busy|awaiting.*|paused|connecting|reconnecting|asked|draft)$/i;

export function Badge({ value }) {
  const text = value === undefined || value === null ? "—" : String(value);
  const tone = GOOD.test(text) ? "good" : BAD.test(text) ? "bad" : WAIT.test(text) ? "wait" : "plain";
  return html`<span class=${`badge ${tone}`}>${text}</span>`;
}

export function Json({ value, label }) {
  return html`<pre class="json" aria-label=${label || "details"} tabindex="0">${
    JSON.stringify(value, null, 2)}</pre>`;
}

export function Section({ title, actions, children, id }) {
  return html`<section class="card" aria-labelledby=${id}>
    <div class="card-head"><h2 id=${id}>${title}</h2>${actions ? html`<div class="actions">${actions}</div>` : ""}</div>
    ${children}
  </section>`;
}

// A button that runs an async action, disables itself meanwhile and reports failures.
export function Action({ onRun, children, kind = "", label, disabled }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const click = async () => {
    setBusy(true);
    setError(null);
    try {
      await onRun();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return html`<span class="action"><button type="button" class=${kind} onClick=${click}
    disabled=${busy || disabled} aria-label=${label}>${children}</button>${
    error ? html`<span class="error small" role="alert">${error.message}</span>` : ""}</span>`;
}

export const time = (ms) => {
  if (!ms) return "—";
  const value = ms < 1e12 ? ms * 1000 : ms; // seconds or milliseconds
  return new Date(value).toLocaleString();
};

export const asList = (data, ...keys) => {
  if (Array.isArray(data)) return data;
  for (const key of keys) if (data && Array.isArray(data[key])) return data[key];
  return [];
};

export function StreamState({ state }) {
  const text = { live: "live", connecting: "connecting", reconnecting: "reconnecting…",
    unauthorized: "token refused", closed: "closed" }[state] || state;
  return html`<span class=${`stream-state ${state}`} role="status" aria-live="polite"
    data-state=${state}>● ${text}</span>`;
}
