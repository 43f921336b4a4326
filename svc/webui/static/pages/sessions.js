import { html, useState } from "../vendor/htm-preact-3.1.1.js";
import { api } from "../api.js";
import { useApi, Loading, ErrorBox, Badge, StreamState, time } from "../ui.js";
import { useLive } from "../live.js";

export function SessionsPage() {
  const sessions = useApi(async () => {
    const [list, status] = await Promise.all([api("/session?page_size=100"), api("/session/status")]);
    return { list: Array.isArray(list) ? list : [], status: status || {} };
  });
  const stream = useLive("/event", (type) => type.startsWith("session."), sessions.reload);
  const [title, setTitle] = useState("");
  const [error, setError] = useState(null);
  const create = async (event) => {
    event.preventDefault();
    setError(null);
    try {
      const created = await api("/session", { method: "POST", body: title ? { title } : {} });
      location.hash = `#/session/${encodeURIComponent(created.id)}`;
    } catch (e) {
      setError(e);
    }
  };
  return html`<h1>Sessions <${StreamState} state=${stream} /></h1>
    <form class="inline card" onSubmit=${create} aria-label="New session">
      <label for="new-title">Title</label>
      <input id="new-title" value=${title} placeholder="New session"
        onInput=${(e) => setTitle(e.target.value)} />
      <button type="submit" class="primary">Create session</button>
      <${ErrorBox} error=${error} />
    </form>
    ${sessions.loading ? html`<${Loading} />` : sessions.error ? html`<${ErrorBox} error=${sessions.error} />`
      : html`<table class="list" aria-label="Sessions">
        <thead><tr><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Updated</th></tr></thead>
        <tbody>${sessions.data.list.length ? sessions.data.list.map((s) => html`<tr key=${s.id}>
          <td><a href=${`#/session/${encodeURIComponent(s.id)}`} class="session-link">${s.title || s.id}</a></td>
          <td><${Badge} value=${(sessions.data.status[s.id] || {}).type || "idle"} /></td>
          <td>${time(s.time && (s.time.updated || s.time.created))}</td></tr>`)
          : html`<tr><td colspan="3" class="muted">No sessions yet.</td></tr>`}</tbody></table>`}`;
}
