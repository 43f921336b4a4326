// The shell: token gate (embedded mode), navigation, hash routing, lazy pages.
import { html, render, useState, useEffect } from "./vendor/htm-preact-3.1.1.js";
import { api, mode, setToken, onAuthRequired } from "./api.js";
import { SessionsPage } from "./pages/sessions.js";

export const PAGES = [
  ["sessions", "Sessions"],
  ["approvals", "Approvals"],
  ["automations", "Automations"],
  ["teams", "Agent teams"],
  ["goals", "Goals"],
  ["mcp", "MCP"],
  ["memory", "Memory"],
  ["incidents", "Incident monitor"],
  ["enterprise", "Enterprise"],
  ["browser", "Browser"],
  ["channels", "Channels"],
  ["engine", "Engine"],
];

// Pages other than the first one load on first visit, so first paint stays small.
const LAZY = {
  session: () => import("./pages/chat.js").then((m) => m.ChatPage),
  approvals: () => import("./pages/approvals.js").then((m) => m.ApprovalsPage),
  automations: () => import("./pages/automations.js").then((m) => m.AutomationsPage),
  teams: () => import("./pages/teams.js").then((m) => m.TeamsPage),
  goals: () => import("./pages/goals.js").then((m) => m.GoalsPage),
  mcp: () => import("./pages/mcp.js").then((m) => m.McpPage),
  memory: () => import("./pages/memory.js").then((m) => m.MemoryPage),
  engine: () => import("./pages/engine.js").then((m) => m.EnginePage),
  incidents: () => import("./pages/status.js").then((m) => m.IncidentsPage),
  enterprise: () => import("./pages/status.js").then((m) => m.EnterprisePage),
  browser: () => import("./pages/status.js").then((m) => m.BrowserPage),
  channels: () => import("./pages/status.js").then((m) => m.ChannelsPage),
};

function parseRoute() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  const name = parts[0] === "agents" ? "automations" : parts[0] || "sessions";
  return { name, args: parts.slice(1) };
}

function useRoute() {
  const [route, setRoute] = useState(parseRoute);
  useEffect(() => {
    const changed = () => setRoute(parseRoute());
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return route;
}

function LazyPage({ name, args }) {
  const [Page, setPage] = useState(null);
  useEffect(() => {
    let live = true;
    setPage(null);
    (LAZY[name] || LAZY.engine)().then((component) => live && setPage(() => component));
    return () => {
      live = false;
    };
  }, [name]);
  return Page ? html`<${Page} args=${args} />` : html`<p class="muted" role="status">Loading…</p>`;
}

function TokenForm({ onDone, refused }) {
  const [value, setValue] = useState("");
  const [error, setError] = useState(refused ? "The engine refused that token." : "");
  const submit = async (event) => {
    event.preventDefault();
    setToken(value);
    try {
      await api("/session?page_size=1", { quiet: true });
      onDone();
    } catch (e) {
      setToken(null);
      setError(e.status === 401 ? "The engine refused that token." : e.message);
    }
  };
  return html`<main class="token-gate" id="main">
    <form class="card" onSubmit=${submit} aria-labelledby="token-title">
      <h1 id="token-title">svc-engine</h1>
      <p>Enter the ${mode === "panel" ? "control panel's access" : "engine's API"} token. It stays in this tab's memory only and is
        forgotten when the tab closes.</p>
      <label for="token-input">API token</label>
      <input id="token-input" type="password" autocomplete="off" autofocus
        value=${value} onInput=${(e) => setValue(e.target.value)} required />
      ${error ? html`<p class="error" role="alert">${error}</p>` : ""}
      <button type="submit" class="primary">Connect</button>
    </form>
  </main>`;
}

function Nav({ current }) {
  const [open, setOpen] = useState(false);
  return html`<nav aria-label="Pages" class=${open ? "open" : ""}>
    <button type="button" class="menu" aria-expanded=${open} aria-controls="nav-list"
      onClick=${() => setOpen(!open)}>Menu</button>
    <ul id="nav-list">
      ${PAGES.map(([key, label]) => html`<li><a href=${`#/${key}`}
        aria-current=${current === key || (key === "sessions" && current === "session") ? "page" : undefined}
        onClick=${() => setOpen(false)}>${label}</a></li>`)}
    </ul>
  </nav>`;
}

function App() {
  const route = useRoute();
  // "checking" -> "locked" (ask for the token) or "open". The panel asks only when it
  // has an access token of its own; the engine token never reaches the page there.
  const [auth, setAuth] = useState("checking");
  const [refused, setRefused] = useState(false);
  useEffect(() => {
    api("/session?page_size=1", { quiet: true })
      .then(() => setAuth("open"))
      .catch(() => setAuth("locked"));
    return onAuthRequired(() => {
      setToken(null);
      setRefused(true);
      setAuth("locked");
    });
  }, []);
  if (auth === "checking") return html`<p class="muted" role="status">Connecting…</p>`;
  if (auth === "locked") return html`<${TokenForm} refused=${refused} onDone=${() => setAuth("open")} />`;
  const page = route.name === "sessions"
    ? html`<${SessionsPage} />`
    : html`<${LazyPage} key=${route.name} name=${route.name} args=${route.args} />`;
  return html`<a class="skip" href="#main" onClick=${(e) => {
      e.preventDefault();
      document.getElementById("main")?.focus();
    }}>Skip to content</a>
    <header class="top"><a class="brand" href="#/sessions">svc-engine</a>
      <span class="mode">${mode === "panel" ? "control panel" : "admin"}</span></header>
    <div class="layout">
      <${Nav} current=${route.name} />
      <main id="main" tabindex="-1">${page}</main>
    </div>`;
}

render(html`<${App} />`, document.getElementById("app"));
