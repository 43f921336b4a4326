// Goals: the orchestration graph with the goal's current node, the projection
// timeline, and the actions the engine advertises, as buttons.
import { html, useState } from "../vendor/htm-preact-3.1.1.js";
import { api, enc } from "../api.js";
import { Action, Badge, Json, Loaded, StreamState, asList, time, useApi } from "../ui.js";
import { useLive } from "../live.js";
import { Graph } from "../charts.js";

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
    const nodes = asList(g.nodes || g.steps).map((n) => ({ id: n.id || n.node_id, label: n.label || n.title || n.workflow_id || n.id, state: n.state || n.status }));
    const edges = asList(g.edges || g.transitions).map((e) => [e.from || e.source, e.to || e.target]);
    const current = goal.current_node || goal.currentNode || g.current || g.current_node;
    const actions = asList(goal.actions || (projection && projection.actions) || g.actions);
    const timeline = asList(projection && (projection.timeline || projection.entries || projection.events));
    return html`<article class="card">
      <div class="card-head"><h2>${goal.title || goal.objective || id}</h2><${StreamState} state=${stream} /></div>
      <p><${Badge} value=${goal.status} /> current node <code>${current || "—"}</code></p>
      ${nodes.length ? html`<${Graph} nodes=${nodes} edges=${edges} current=${current} label="Orchestration graph" />` : ""}
      <div class="actions">${actions.map((a) => {
        const actionId = typeof a === "string" ? a : a.id || a.action_id || a.action;
        return html`<${Action} key=${actionId} onRun=${() => api(`/goals/${enc(id)}/actions/${actionId}`, { method: "POST", body: {} }).then(detail.reload)}>${(a && a.label) || actionId}<//>`;
      })}</div>
      <h3>Projection timeline</h3>
      ${timeline.length ? html`<ol class="timeline-list">${timeline.map((t, i) => html`<li key=${i}>
        <span class="muted">${time(t.at_ms || t.occurred_at_ms || t.timestamp_ms)}</span> ${t.type || t.kind || t.event || ""} ${t.summary || ""}</li>`)}</ol>`
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
        <tbody>${list.map((g) => html`<tr key=${g.id || g.goal_id}><td><button type="button" class="link"
          onClick=${() => setSelected(g.id || g.goal_id)}>${g.title || g.objective || g.id}</button></td>
          <td><${Badge} value=${g.status} /></td><td>${time(g.updated_at_ms)}</td></tr>`)}</tbody></table>`
        : html`<p class="muted">No goals.</p>`;
    }}<//>
    ${selected ? html`<${GoalDetail} key=${selected} id=${selected} />` : ""}`;
}
