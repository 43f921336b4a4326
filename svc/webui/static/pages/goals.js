// Goals: the orchestration graph with the goal's current node, the projection
// timeline, and the actions the engine advertises, as buttons.
import { html, useState } from "../vendor/htm-preact-3.1.1.js";
import { api, enc } from "../api.js";
import { Action, Badge, Json, Loaded, StreamState, asList, time, useApi } from "../ui.js";
import { useLive } from "../live.js";
import { Graph } from "../charts.js";

const newKey = () => (crypto.randomUUID ? crypto.randomUUID() : `ui-${Date.now()}-${Math.random()}`);

function GoalAction({ goal, action, onDone }) {
  const [reason, setReason] = useState("");
  const actionId = typeof action === "string" ? action : action.id || action.action_id || action.action;
  const label = (action && action.label) || actionId;
  const enabled = action.enabled !== false;
  const run = () => api(`/goals/${enc(goal.goal_id || goal.id)}/actions/${enc(actionId)}`, {
    method: "POST",
    // The engine checks the goal did not change since it was shown, and replays a repeated key.
    body: { expected_updated_at_ms: goal.updated_at_ms, idempotency_key: newKey(), ...(reason ? { reason } : {}) },
  }).then(onDone);
  return html`<div class="goal-action" data-action=${actionId}>
    ${action.reason_required ? html`<label for=${`why-${actionId}`}>Reason</label>
      <input id=${`why-${actionId}`} value=${reason} onInput=${(e) => setReason(e.target.value)} />` : ""}
    <${Action} kind=${action.destructive ? "danger" : ""} disabled=${!enabled || (action.reason_required && !reason.trim())}
      onRun=${run}>${label}<//>
    ${!enabled && action.disabled_reason ? html`<span class="muted small"> (${action.disabled_reason})</span>` : ""}
  </div>`;
}

function GoalDetail({ id }) {
  const detail = useApi(async () => {
    const [goal, graph, projection] = await Promise.all([
      api(`/goals/${enc(id)}`), api(`/goals/${enc(id)}/graph`).catch(() => null),
      api(`/goals/${enc(id)}/projection`).catch(() => null)]);
    return { goal: goal.goal || goal, graph, projection };
  }, [id]);
  const stream = useLive(`/goals/${enc(id)}/events`, () => true, detail.reload);
  return html`<${Loaded} state=${detail} route=${`/goals/${id}`}>${({ goal, graph, projection }) => {
    const g = (graph && (graph.graph || graph)) || {};
    const nodeId = (n) => n.node_id || n.id;
    const nodes = asList(g.nodes || g.steps).map((n) => ({ id: nodeId(n), label: n.name || n.label || n.title || nodeId(n), state: n.state || n.status }));
    const edges = asList(g.edges || g.transitions).map((e) => [e.from_node_id || e.from || e.source, e.to_node_id || e.to || e.target]);
    const current = goal.current_node_id || goal.current_node || g.current_node_id || g.current_node;
    const actions = asList((projection && projection.actions) || goal.actions || g.actions);
    const rawTimeline = projection && projection.timeline;
    const timeline = asList(rawTimeline, "events", "entries").map((t) => t.event || t);
    return html`<article class="card" data-goal=${goal.goal_id || id}>
      <div class="card-head"><h2>${goal.title || goal.objective || id}</h2><${StreamState} state=${stream} /></div>
      <p><${Badge} value=${goal.status} /> current node <code class="current-node">${current || "—"}</code></p>
      ${nodes.length ? html`<${Graph} nodes=${nodes} edges=${edges} current=${current} label="Orchestration graph" />` : ""}
      <div class="actions" aria-label="Goal actions">${actions.map((a) => html`<${GoalAction}
        key=${a.id || a} goal=${goal} action=${a} onDone=${detail.reload} />`)}</div>
      <h3>Projection timeline</h3>
      ${timeline.length ? html`<ol class="timeline-list">${timeline.map((t, i) => html`<li key=${i}>
        <span class="muted">${time(t.occurred_at_ms || t.at_ms || t.timestamp_ms)}</span> ${t.event_type || t.type || t.kind || t.event || ""} ${t.summary || ""}</li>`)}</ol>`
        : projection ? html`<${Json} value=${projection} />` : html`<p class="muted">No projection.</p>`}
    </article>`;
  }}<//>`;
}

export function GoalsPage({ args }) {
  const goals = useApi("/goals");
  const [selected, setSelected] = useState(args[0] || null);
  return html`<h1>Goals</h1>
    <${Loaded} state=${goals} route="/goals">${(data) => {
      const list = asList(data, "goals");
      return list.length ? html`<table class="list" aria-label="Goals"><thead><tr><th scope="col">Goal</th><th scope="col">Status</th><th scope="col">Updated</th></tr></thead>
        <tbody>${list.map((g) => html`<tr key=${g.goal_id || g.id}><td><button type="button" class="link"
          onClick=${() => setSelected(g.goal_id || g.id)}>${g.title || g.objective || g.id}</button></td>
          <td><${Badge} value=${g.status} /></td><td>${time(g.updated_at_ms)}</td></tr>`)}</tbody></table>`
        : html`<p class="muted">No goals.</p>`;
    }}<//>
    ${selected ? html`<${GoalDetail} key=${selected} id=${selected} />` : ""}`;
}
