// Agent teams: missions with their instance trees and budget use against limits.
import { html } from "../vendor/htm-preact-3.1.1.js";
import { api, enc } from "../api.js";
import { Action, Badge, Loaded, Section, StreamState, asList, useApi } from "../ui.js";
import { useLive } from "../live.js";
import { Bars } from "../charts.js";

// [bar label, limit key, usage keys as instances and mission roll-ups name them]
const LIMITS = [
  ["tokens", "max_tokens", ["tokensUsed", "tokenUsedTotal", "tokens"]],
  ["steps", "max_steps", ["stepsUsed", "stepsUsedTotal", "steps"]],
  ["tool calls", "max_tool_calls", ["toolCallsUsed", "toolCallsUsedTotal", "tool_calls"]],
  ["duration ms", "max_duration_ms", ["elapsedMs", "duration_ms"]],
  ["cost USD", "max_cost_usd", ["costUsedUsd", "costUsedUsdTotal", "cost_usd"]],
];

// One bar per limit that is set, its use against it.
function budgetBars(usage = {}, limits = {}) {
  const used = (keys) => Number(keys.map((k) => usage[k]).find((v) => v !== undefined && v !== null) || 0);
  return LIMITS.filter(([, l]) => limits[l] !== undefined && limits[l] !== null)
    .map(([label, l, keys]) => ({ label, used: used(keys), limit: Number(limits[l]) }));
}

// A mission roll-up has counts, not a status of its own.
const missionStatus = (m) => m.status || (m.cancelledAtMs ? "cancelled" : m.exhaustedBy ? "exhausted"
  : m.runningCount || m.queuedCount ? "running" : m.failedCount ? "failed" : m.instanceCount ? "completed" : "idle");

function Tree({ instances, parent }) {
  const children = instances.filter((i) => (i.parentInstanceID || i.parent_instance_id || null) === parent);
  if (!children.length) return null;
  return html`<ul class="tree">${children.map((i) => {
    const id = i.instanceID || i.instance_id || i.id;
    const usage = i.budgetUsage || (i.metadata && i.metadata.budgetUsage) || i.usage || {};
    const bars = budgetBars(usage, i.budget || i.limits || {});
    return html`<li key=${id} data-instance=${id}><span>${i.role || i.templateID || id}</span> <${Badge} value=${i.status} />
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
        const bars = budgetBars(m.budgetUsage || m.usage || m, m.budget || m.limits || {});
        return html`<${Section} key=${id} id=${`m-${id}`} title=${`Mission ${m.title || id}`}
          actions=${html`<${Badge} value=${missionStatus(m)} /> <${Action} kind="danger" onRun=${() => api(`/agent-team/mission/${enc(id)}/cancel`, { method: "POST", body: {} }).then(reload)}>Cancel mission<//>`}>
          ${bars.length ? html`<${Bars} items=${bars} label=${`Budget of mission ${id}`} />` : ""}
          ${mine.length ? html`<${Tree} instances=${mine} parent=${null} />` : html`<p class="muted">No instances.</p>`}
        <//>`;
      });
    }}<//>`;
}
