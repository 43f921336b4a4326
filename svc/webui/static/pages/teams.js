// Agent teams: missions with their instance trees and budget use against limits.
import { html } from "../vendor/htm-preact-3.1.1.js";
import { api, enc } from "../api.js";
import { Action, Badge, Loaded, Section, StreamState, asList, useApi } from "../ui.js";
import { useLive } from "../live.js";
import { Bars } from "../charts.js";

const LIMITS = [["tokens", "max_tokens"], ["steps", "max_steps"], ["tool_calls", "max_tool_calls"],
  ["duration_ms", "max_duration_ms"], ["cost_usd", "max_cost_usd"]];

function budgetBars(usage = {}, limits = {}) {
  return LIMITS.filter(([u, l]) => usage[u] !== undefined || limits[l] !== undefined || limits[u] !== undefined)
    .map(([u, l]) => ({ label: u, used: Number(usage[u] || 0), limit: Number(limits[l] ?? limits[u] ?? 0) }));
}

function Tree({ instances, parent }) {
  const children = instances.filter((i) => (i.parentInstanceID || i.parent_instance_id || null) === parent);
  if (!children.length) return null;
  return html`<ul class="tree">${children.map((i) => {
    const id = i.instanceID || i.instance_id || i.id;
    const bars = budgetBars(i.budgetUsage || i.budget_usage || i.usage, i.budget || i.budgetLimit || i.limits);
    return html`<li key=${id}><span>${i.role || i.templateID || id}</span> <${Badge} value=${i.status} />
      ${i.status === "running" ? html` <${Action} kind="danger" onRun=${() => api(`/agent-team/instance/${enc(id)}/cancel`, { method: "POST", body: {} })}>Cancel<//>` : ""}
      ${bars.length ? html`<${Bars} items=${bars} label=${`Budget of ${id}`} />` : ""}
      <${Tree} instances=${instances} parent=${id} /></li>`;
  })}</ul>`;
}

export function TeamsPage() {
  const missions = useApi("/agent-team/missions");
  const instances = useApi("/agent-team/instances");
  const reload = () => { missions.reload(); instances.reload(); };
  const stream = useLive("/event", (type) => type.startsWith("agent_team."), reload);
  return html`<h1>Agent teams <${StreamState} state=${stream} /></h1>
    <${Loaded} state=${missions} route="/agent-team/missions">${(data) => {
      const list = asList(data, "missions");
      const all = asList(instances.data, "instances");
      if (!list.length) return html`<p class="muted">No missions.</p>`;
      return list.map((m) => {
        const id = m.missionID || m.mission_id || m.id;
        const mine = all.filter((i) => (i.missionID || i.mission_id) === id);
        const bars = budgetBars(m.budgetUsage || m.usage || m.totals, m.budget || m.budgetLimit || m.limits);
        return html`<${Section} key=${id} id=${`m-${id}`} title=${`Mission ${m.title || id}`}
          actions=${html`<${Badge} value=${m.status} /> <${Action} kind="danger" onRun=${() => api(`/agent-team/mission/${enc(id)}/cancel`, { method: "POST", body: {} }).then(reload)}>Cancel mission<//>`}>
          ${bars.length ? html`<${Bars} items=${bars} label=${`Budget of mission ${id}`} />` : ""}
          ${mine.length ? html`<${Tree} instances=${mine} parent=${null} />` : html`<p class="muted">No instances.</p>`}
        <//>`;
      });
    }}<//>`;
}
