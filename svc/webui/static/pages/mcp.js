// MCP connectors: status, tools, connect, refresh, enable and disable, auth challenges.
import { html } from "../vendor/htm-preact-3.1.1.js";
import { api, enc } from "../api.js";
import { Action, Badge, Loaded, StreamState, asList, useApi } from "../ui.js";
import { useLive } from "../live.js";

export function McpPage() {
  const servers = useApi("/mcp");
  const tools = useApi("/mcp/tools");
  const reload = () => { servers.reload(); tools.reload(); };
  const stream = useLive("/event", (type) => type.startsWith("mcp."), reload);
  const post = (name, verb) => () => api(`/mcp/${enc(name)}/${verb}`, { method: "POST", body: {} }).then(reload);
  const toggle = (name, enabled) => () => api(`/mcp/${enc(name)}`, { method: "PATCH", body: { enabled } }).then(reload);
  return html`<h1>MCP connectors <${StreamState} state=${stream} /></h1>
    <${Loaded} state=${servers} route="/mcp">${(data) => {
      const list = Array.isArray(data) ? data : asList(data, "servers", "connectors").length ? asList(data, "servers", "connectors")
        : Object.entries(data || {}).map(([name, v]) => ({ name, ...v }));
      const allTools = asList(tools.data, "tools");
      if (!list.length) return html`<p class="muted">No connectors.</p>`;
      return html`<div class="grid">${list.map((s) => {
        const toolName = (t) => t.namespaced_name || t.name || t.id || String(t);
        const mine = allTools.filter((t) => t.server_name === s.name || toolName(t).startsWith(`mcp.${s.name}.`));
        const challenge = s.last_auth_challenge || s.auth_challenge || s.authChallenge || s.pending_auth;
        return html`<article class="card" key=${s.name} data-connector=${s.name}>
          <div class="card-head"><h2>${s.name}</h2><${Badge} value=${s.status || (s.connected ? "connected" : "disconnected")} /></div>
          <p class="muted">${s.transport || s.url || ""}</p>
          ${s.last_error ? html`<p class="error small">${s.last_error}</p>` : ""}
          ${challenge ? html`<p class="ask">Authorization needed: <a href=${challenge.authorization_url || challenge.authorizationUrl || challenge.url}
            target="_blank" rel="noopener noreferrer">open the authorization link</a></p>` : ""}
          <details><summary>${mine.length} tools</summary><ul>${mine.map((t) => html`<li key=${toolName(t)}><code>${toolName(t)}</code>${t.description ? html` <span class="muted">${t.description}</span>` : ""}</li>`)}</ul></details>
          <div class="actions">
            <${Action} onRun=${post(s.name, "connect")}>Connect<//>
            <${Action} onRun=${post(s.name, "refresh")}>Refresh<//>
            ${s.enabled === false ? html`<${Action} onRun=${toggle(s.name, true)}>Enable<//>`
              : html`<${Action} kind="danger" onRun=${toggle(s.name, false)}>Disable<//>`}
          </div></article>`;
      })}</div>`;
    }}<//>`;
}
