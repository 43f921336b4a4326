// Routines (v1) and automations (v2): schedules, next fire time, last runs, run now,
// and a v2 automation's DAG with each node's state in its current run.
import { html, useState } from "../vendor/htm-preact-3.1.1.js";
import { api, enc } from "../api.js";
import { Action, Badge, ErrorBox, Loaded, Section, StreamState, asList, time, useApi } from "../ui.js";
import { useLive } from "../live.js";
import { Graph } from "../charts.js";

const schedule = (item) => {
  const s = item.schedule || {};
  // Routines nest the value ({interval_seconds: {seconds}}, {cron: {expression}}); v2 is flat.
  const every = typeof s.interval_seconds === "object" ? s.interval_seconds.seconds : s.interval_seconds;
  const cron = typeof s.cron === "object" ? s.cron.expression : s.cron;
  return cron || s.expression || (every ? `every ${every}s` : s.type) || JSON.stringify(s);
};
const idOf = (x) => x.id || x.routine_id || x.routineID || x.automation_id || x.automationID;

function nodesOf(automation, run) {
  const flow = automation.flow || automation.dag || {};
  const raw = flow.nodes || automation.nodes || automation.agents || [];
  const states = (run && (run.node_statuses || run.node_states || run.nodeStates || run.nodes)) || {};
  const stateOf = (id) => {
    const s = Array.isArray(states) ? states.find((n) => (n.node_id || n.id) === id) : states[id];
    return s && typeof s === "object" ? s.status || s.state : s;
  };
  const nodes = raw.map((n) => ({ id: n.node_id || n.id || n.agent_id, label: n.title || n.name || n.node_id || n.id, state: stateOf(n.node_id || n.id) }));
  const edges = [];
  for (const n of raw) for (const dep of n.depends_on || n.dependsOn || []) edges.push([dep, n.node_id || n.id]);
  return { nodes, edges };
}

function V2Automation({ item }) {
  const runs = useApi(`/automations/v2/${enc(idOf(item))}/runs`, [idOf(item)]);
  const latest = asList(runs.data, "runs")[0];
  const { nodes, edges } = nodesOf(item, latest);
  return html`<article class="card" data-automation=${idOf(item)}>
    <div class="card-head"><h3>${item.name || idOf(item)}</h3><${Badge} value=${item.status} /></div>
    <p class="muted">Schedule: ${schedule(item)} · next fire ${time(item.next_fire_at_ms || item.nextFireAtMs)}</p>
    ${nodes.length ? html`<${Graph} nodes=${nodes} edges=${edges} label=${`DAG of ${item.name || idOf(item)}`} />` : ""}
    <p>Last run: ${latest ? html`<${Badge} value=${latest.status} /> ${time(latest.created_at_ms || latest.started_at_ms)}` : "none"}</p>
    <${Action} onRun=${async () => { await api(`/automations/v2/${enc(idOf(item))}/run_now`, { method: "POST", body: {} }); runs.reload(); }}>Run now<//>
  </article>`;
}

export function AutomationsPage() {
  const routines = useApi("/routines");
  const v2 = useApi("/automations/v2");
  const reload = () => { routines.reload(); v2.reload(); };
  const stream = useLive("/automations/events", () => true, reload);
  return html`<h1>Automations <${StreamState} state=${stream} /></h1>
    <${Section} title="Routines" id="routines-title">
      <${Loaded} state=${routines} route="/routines">${(data) => {
        const list = asList(data, "routines", "automations");
        return list.length ? html`<table class="list" aria-label="Routines"><thead><tr><th scope="col">Name</th>
          <th scope="col">Schedule</th><th scope="col">Next fire</th><th scope="col">Status</th><th scope="col">Action</th></tr></thead>
          <tbody>${list.map((r) => html`<tr key=${idOf(r)}><td>${r.name || idOf(r)}</td><td>${schedule(r)}</td>
            <td>${time(r.next_fire_at_ms || r.nextFireAtMs)}</td><td><${Badge} value=${r.status} /></td>
            <td><${Action} onRun=${() => api(`/routines/${enc(idOf(r))}/run_now`, { method: "POST", body: {} }).then(reload)}>Run now<//></td></tr>`)}
          </tbody></table>` : html`<p class="muted">No routines.</p>`;
      }}<//>
    <//>
    <${Section} title="Automations v2" id="v2-title">
      <${Loaded} state=${v2} route="/automations/v2">${(data) => {
        const list = asList(data, "automations");
        return list.length ? list.map((a) => html`<${V2Automation} key=${idOf(a)} item=${a} />`)
          : html`<p class="muted">No v2 automations.</p>`;
      }}<//>
    <//>`;
}
