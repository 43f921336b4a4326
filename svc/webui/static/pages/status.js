// Capabilities shown through their own status routes, or "not available" when absent.
import { html } from "../vendor/htm-preact-3.1.1.js";
import { Json, Loaded, Section, StreamState, asList, useApi } from "../ui.js";
import { useLive } from "../live.js";
import { LineChart } from "../charts.js";

function StatusPage({ title, route, extra }) {
  const state = useApi(route);
  return html`<h1>${title}</h1>
    <${Section} title="Status" id="status-title">
      <${Loaded} state=${state} route=${route}>${(data) => html`${extra ? extra(data) : ""}<${Json} value=${data} label=${`${title} status`} />`}<//>
    <//>`;
}

export function IncidentsPage() {
  const drafts = useApi("/incident-monitor/drafts");
  const stream = useLive("/event", (type) => type.startsWith("incident"), drafts.reload);
  const points = asList(drafts.data, "drafts").map((d, i) => ({ t: d.created_at_ms || d.createdAtMs || i, v: i + 1 }));
  return html`<${StatusPage} title="Incident monitor" route="/incident-monitor/status" />
    <${Section} title="Drafts over time" id="inc-drafts" actions=${html`<${StreamState} state=${stream} />`}>
      <${Loaded} state=${drafts} route="/incident-monitor/drafts">${(data) => {
        const list = asList(data, "drafts");
        return html`<${LineChart} points=${points} label="Drafts (cumulative)" />
          ${list.length ? html`<table class="list" aria-label="Incident drafts"><thead><tr><th scope="col">Draft</th>
            <th scope="col">Status</th><th scope="col">Occurrences</th></tr></thead><tbody>${list.map((d) => html`<tr key=${d.draft_id}>
            <td>${d.title || d.draft_id}</td><td>${d.status}</td><td>${d.occurrence_count ?? ""}</td></tr>`)}</tbody></table>`
            : html`<p class="muted">No drafts.</p>`}`;
      }}<//>
    <//>`;
}
export const EnterprisePage = () => html`<${StatusPage} title="Enterprise readiness" route="/enterprise/status" />`;
export const BrowserPage = () => html`<${StatusPage} title="Browser" route="/browser/status" />`;
export const ChannelsPage = () => html`<${StatusPage} title="Channels" route="/channels/status" />`;
