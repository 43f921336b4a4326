// Memory search with ranked results, and the identity settings.
import { html, useState } from "../vendor/htm-preact-3.1.1.js";
import { api } from "../api.js";
import { ErrorBox, Json, Loaded, Section, asList, useApi } from "../ui.js";

export function MemoryPage() {
  const [query, setQuery] = useState("");
  const [results, setResults] = useState(null);
  const [error, setError] = useState(null);
  const identity = useApi("/config/identity");
  const search = async (event) => {
    event.preventDefault();
    setError(null);
    try {
      setResults(asList(await api("/memory/search", { method: "POST", body: { query, limit: 20 } }), "results", "items", "records"));
    } catch (e) {
      setError(e);
    }
  };
  return html`<h1>Memory</h1>
    <${Section} title="Search" id="mem-search">
      <form class="inline" onSubmit=${search} role="search">
        <label for="mem-q">Query</label>
        <input id="mem-q" value=${query} onInput=${(e) => setQuery(e.target.value)} />
        <button type="submit" class="primary">Search</button>
      </form>
      <${ErrorBox} error=${error} />
      ${results ? (results.length ? html`<ol class="results">${results.map((r, i) => html`<li key=${i}>
          <span class="badge plain">${(r.score ?? r.rank ?? "").toString().slice(0, 6)}</span>
          ${r.content || r.text || (r.record && r.record.content) || JSON.stringify(r)}
          <span class="muted"> ${r.tier || (r.record && r.record.tier) || ""}</span></li>`)}</ol>`
        : html`<p class="muted">No results.</p>`) : ""}
    <//>
    <${Section} title="Identity" id="mem-identity">
      <${Loaded} state=${identity} route="/config/identity">${(data) => html`<${Json} value=${data} label="identity settings" />`}<//>
    <//>`;
}
