// The engine: health, version, configuration (secrets masked by the engine), reload.
import { html, useState } from "../vendor/htm-preact-3.1.1.js";
import { api } from "../api.js";
import { Action, Badge, Json, Loaded, Section, useApi } from "../ui.js";

export function EnginePage() {
  const health = useApi("/global/health");
  const providers = useApi("/config/providers");
  const [reloaded, setReloaded] = useState(null);
  return html`<h1>Engine</h1>
    <${Section} title="Health" id="eng-health" actions=${html`<${Action} onRun=${async () => {
      await api("/admin/reload-config", { method: "POST" }); setReloaded(new Date());
      providers.reload(); health.reload(); }}>Reload configuration<//>`}>
      <p role="status" class="muted reload-status">${reloaded ? `Configuration reloaded at ${reloaded.toLocaleTimeString()}` : ""}</p>
      <${Loaded} state=${health} route="/global/health">${(h) => html`<dl class="kv">
        <dt>Healthy</dt><dd><${Badge} value=${h.healthy} /></dd><dt>Ready</dt><dd><${Badge} value=${h.ready} /></dd>
        <dt>Version</dt><dd>${h.version}</dd></dl>`}<//>
    <//>
    <${Section} title="Configuration" id="eng-config">
      <${Loaded} state=${providers} route="/config/providers">${(data) => html`<${Json} value=${data} label="provider configuration" />`}<//>
    <//>`;
}
