// Every pending approval in one place, read from the same routes (the same source of
// truth) as the run state; approve or deny with a reason.
import { html, useState } from "../vendor/htm-preact-3.1.1.js";
import { api, enc, isAbsent } from "../api.js";
import { Badge, ErrorBox, Json, Loading, StreamState, asList, time, useApi } from "../ui.js";
import { useLive } from "../live.js";

const PENDING = /pending|awaiting|approval|waiting|draft|open|requested/i;
const pending = (item) => PENDING.test(String(item.status || item.state || "pending"));
const idOf = (item) => item.id || item.requestID || item.runID || item.run_id || item.approvalID ||
  item.approval_id || item.draft_id || item.handoff_id;

async function goalHandoffs() {
  const goals = asList(await api("/goals"), "goals").slice(0, 25);
  const lists = await Promise.all(goals.map((g) =>
    api(`/goals/${enc(g.id || g.goal_id)}/handoffs`).then((h) =>
      asList(h, "handoffs").map((x) => ({ ...x, goal_id: g.id || g.goal_id })))
      .catch(() => [])));
  return lists.flat();
}

const SOURCES = [
  { key: "permissions", label: "Run permissions", route: "/permission",
    load: async () => asList(await api("/permission"), "requests"),
    approve: (i) => api(`/permission/${enc(i.id)}/reply`, { method: "POST", body: { reply: "once" } }),
    deny: (i, reason) => api(`/permission/${enc(i.id)}/reply`, { method: "POST", body: { reply: "reject", reason } }),
    title: (i) => `${i.tool} in session ${String(i.sessionID).slice(0, 8)}`, detail: (i) => i.args },
  { key: "questions", label: "Questions", route: "/question",
    load: async () => asList(await api("/question")),
    deny: (i) => api(`/question/${enc(i.id)}/reject`, { method: "POST" }),
    title: (i) => ((i.questions || [])[0] || {}).question || "Question", detail: (i) => i.questions,
    link: (i) => `#/session/${enc(i.sessionID)}` },
  { key: "routines", label: "Routine and automation runs", route: "/routines/runs",
    load: async () => asList(await api("/routines/runs?limit=200"), "runs")
      .filter((r) => /approval/i.test(String(r.status))),
    approve: (i, reason) => api(`/routines/runs/${enc(idOf(i))}/approve`, { method: "POST", body: { reason } }),
    deny: (i, reason) => api(`/routines/runs/${enc(idOf(i))}/deny`, { method: "POST", body: { reason } }),
    title: (i) => `Run ${idOf(i)} of ${i.routineID || i.routine_id || "routine"}` },
  { key: "v2", label: "Automation v2 gates", route: "/automations/v2/runs",
    load: async () => asList(await api("/automations/v2/runs"), "runs")
      .filter((r) => /approval|gate|awaiting/i.test(String(r.status))),
    approve: (i, reason) => api(`/automations/v2/runs/${enc(idOf(i))}/gate`, { method: "POST", body: { decision: "approve", reason } }),
    deny: (i, reason) => api(`/automations/v2/runs/${enc(idOf(i))}/gate`, { method: "POST", body: { decision: "cancel", reason } }),
    title: (i) => `Run ${idOf(i)} of ${i.automation_id || i.automationID || "automation"}` },
  { key: "spawn", label: "Spawn approvals", route: "/agent-team/approvals",
    load: async () => asList(await api("/agent-team/approvals"), "spawnApprovals", "approvals", "spawn").filter(pending),
    approve: (i, reason) => api(`/agent-team/approvals/spawn/${enc(idOf(i))}/approve`, { method: "POST", body: { reason } }),
    deny: (i, reason) => api(`/agent-team/approvals/spawn/${enc(idOf(i))}/deny`, { method: "POST", body: { reason } }),
    title: (i) => `Spawn ${i.role || i.templateID || i.template_id || ""}`.trim() },
  { key: "handoffs", label: "Goal handoffs", route: "/goals",
    load: async () => (await goalHandoffs()).filter(pending),
    approve: (i, reason) => api(`/goals/${enc(i.goal_id)}/handoffs/${enc(idOf(i))}/decision`, { method: "POST", body: { decision: "approve", reason } }),
    deny: (i, reason) => api(`/goals/${enc(i.goal_id)}/handoffs/${enc(idOf(i))}/decision`, { method: "POST", body: { decision: "reject", reason } }),
    title: (i) => `Handoff of goal ${i.goal_id}` },
  { key: "capabilities", label: "Capability requests", route: "/mcp/capability-requests",
    load: async () => asList(await api("/mcp/capability-requests?status=pending"), "requests"),
    title: (i) => `${i.agent_id || i.agentID || "agent"} asks for ${i.capability || i.tool || i.server || "a capability"}` },
  { key: "drafts", label: "Incident drafts", route: "/incident-monitor/drafts",
    load: async () => asList(await api("/incident-monitor/drafts"), "drafts").filter(pending),
    approve: (i, reason) => api(`/incident-monitor/drafts/${enc(idOf(i))}/approve`, { method: "POST", body: { reason } }),
    deny: (i, reason) => api(`/incident-monitor/drafts/${enc(idOf(i))}/deny`, { method: "POST", body: { reason } }),
    title: (i) => i.title || `Draft ${idOf(i)}` },
];

async function loadAll() {
  return Promise.all(SOURCES.map(async (source) => {
    try {
      return { source, items: await source.load(), error: null };
    } catch (error) {
      return { source, items: [], error };
    }
  }));
}

function Item({ source, item, onDone }) {
  const [reason, setReason] = useState("");
  const [error, setError] = useState(null);
  const id = idOf(item);
  const act = (fn) => async () => {
    setError(null);
    try {
      await fn(item, reason || undefined);
      onDone();
    } catch (e) {
      setError(e);
    }
  };
  const detail = source.detail ? source.detail(item) : item;
  return html`<li class="card approval" data-source=${source.key} data-id=${id}>
    <div class="card-head"><strong>${source.title(item)}</strong>
      <span><${Badge} value=${item.status || "pending"} /> <span class="muted">${time(item.requestedAtMs || item.created_at_ms || item.createdAtMs)}</span></span></div>
    <details><summary>Details</summary><${Json} value=${detail} /></details>
    ${source.link ? html`<p><a href=${source.link(item)}>Open the session to answer</a></p>` : ""}
    ${source.approve || source.deny ? html`<div class="actions">
      <label for=${`reason-${source.key}-${id}`}>Reason</label>
      <input id=${`reason-${source.key}-${id}`} value=${reason} onInput=${(e) => setReason(e.target.value)} />
      ${source.approve ? html`<button type="button" class="primary" onClick=${act(source.approve)}>Approve</button>` : ""}
      ${source.deny ? html`<button type="button" class="danger" onClick=${act(source.deny)}>Deny</button>` : ""}
    </div>` : html`<p class="muted">Shown for information; decided where it was raised.</p>`}
    <${ErrorBox} error=${error} />
  </li>`;
}

export function ApprovalsPage() {
  const all = useApi(loadAll);
  const stream = useLive("/event", (type) => /permission|question|approval|spawn|handoff|gate|draft|run\./.test(type), all.reload);
  if (all.loading) return html`<h1>Approvals</h1><${Loading} />`;
  const total = all.data.reduce((n, s) => n + s.items.length, 0);
  return html`<h1>Approvals <span class="badge plain" aria-label=${`${total} pending`}>${total}</span>
      <${StreamState} state=${stream} /></h1>
    ${all.data.map(({ source, items, error }) => html`<section class="inbox" aria-labelledby=${`src-${source.key}`} key=${source.key}>
      <h2 id=${`src-${source.key}`}>${source.label} <span class="muted">(${items.length})</span></h2>
      ${error ? (isAbsent(error) ? html`<p class="muted not-available">Not available: no <code>${source.route}</code> route.</p>`
        : html`<${ErrorBox} error=${error} />`)
        : items.length ? html`<ul class="plain">${items.map((item) =>
            html`<${Item} key=${idOf(item)} source=${source} item=${item} onDone=${all.reload} />`)}</ul>`
        : html`<p class="muted">Nothing pending.</p>`}
    </section>`)}`;
}
