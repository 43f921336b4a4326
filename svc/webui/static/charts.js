// Pictures drawn as SVG by the page itself: a run timeline, graphs, bars, a line chart.
import { html } from "./vendor/htm-preact-3.1.1.js";

const TONE = { model: "#3b6fd4", tool: "#b4691f" };

// Model turns and tool calls of one run on a time axis.
export function Timeline({ spans, start }) {
  const t0 = start || Math.min(...spans.map((s) => s.start));
  const t1 = Math.max(t0 + 1, ...spans.map((s) => s.end));
  const width = 600;
  const row = 18;
  const x = (t) => 90 + ((t - t0) / (t1 - t0)) * (width - 100);
  const height = spans.length * row + 24;
  return html`<figure class="timeline">
    <figcaption>Run timeline (${Math.round(t1 - t0)} ms)</figcaption>
    <svg viewBox=${`0 0 ${width} ${height}`} role="img"
      aria-label=${`Run timeline: ${spans.map((s) => s.label).join(", ")}`}>
      ${spans.map((s, i) => html`<g key=${i}>
        <text x="0" y=${i * row + 13} class="axis">${s.label.slice(0, 14)}</text>
        <rect x=${x(s.start)} y=${i * row + 3} width=${Math.max(3, x(s.end) - x(s.start))}
          height=${row - 6} rx="2" fill=${TONE[s.kind] || "#777"}><title>${s.label}: ${s.end - s.start} ms</title></rect>
      </g>`)}
      <line x1="90" x2=${width - 10} y1=${height - 18} y2=${height - 18} class="axis-line" />
      <text x="90" y=${height - 4} class="axis">0</text>
      <text x=${width - 10} y=${height - 4} class="axis" text-anchor="end">${Math.round(t1 - t0)} ms</text>
    </svg></figure>`;
}

// Layered drawing of a directed acyclic graph: nodes [{id, label, state}], edges [[from, to]].
export function Graph({ nodes, edges, current, label = "Graph" }) {
  const depth = new Map(nodes.map((n) => [n.id, 0]));
  for (let pass = 0; pass < nodes.length; pass += 1) {
    let changed = false;
    for (const [a, b] of edges) {
      if (depth.has(a) && depth.has(b) && depth.get(b) < depth.get(a) + 1) {
        depth.set(b, depth.get(a) + 1);
        changed = true;
      }
    }
    if (!changed) break;
  }
  const layers = [];
  for (const n of nodes) (layers[depth.get(n.id)] ||= []).push(n);
  const W = 150;
  const H = 54;
  const pos = new Map();
  layers.forEach((layer, col) => layer.forEach((n, r) => pos.set(n.id, { x: 10 + col * (W + 40), y: 10 + r * (H + 16) })));
  const width = Math.max(200, layers.length * (W + 40));
  const height = Math.max(80, Math.max(1, ...layers.map((l) => l.length)) * (H + 16) + 10);
  return html`<figure class="graph"><svg viewBox=${`0 0 ${width} ${height}`} role="img" aria-label=${label}
      style=${`max-width:${width}px`}>
    <defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
      <path d="M0 0L10 5L0 10z" fill="#888" /></marker></defs>
    ${edges.filter(([a, b]) => pos.has(a) && pos.has(b)).map(([a, b], i) => {
      const p = pos.get(a);
      const q = pos.get(b);
      return html`<path key=${`e${i}`} class="edge" marker-end="url(#arrow)"
        d=${`M${p.x + W} ${p.y + H / 2} C${p.x + W + 20} ${p.y + H / 2} ${q.x - 20} ${q.y + H / 2} ${q.x} ${q.y + H / 2}`} />`;
    })}
    ${nodes.map((n) => {
      const p = pos.get(n.id);
      return html`<g key=${n.id} class=${`node state-${String(n.state || "none").toLowerCase()}${n.id === current ? " current" : ""}`}
        transform=${`translate(${p.x} ${p.y})`} data-node=${n.id}>
        <rect width=${W} height=${H} rx="6" />
        <text x="8" y="20" class="node-label">${String(n.label || n.id).slice(0, 20)}</text>
        <text x="8" y="40" class="node-state">${n.state || ""}</text>
        <title>${n.label || n.id}: ${n.state || "no state"}</title>
      </g>`;
    })}
  </svg></figure>`;
}

// Use against a limit, one bar per item: [{label, used, limit}].
export function Bars({ items, label = "Budget use" }) {
  const row = 26;
  const width = 520;
  return html`<figure class="bars"><svg viewBox=${`0 0 ${width} ${items.length * row + 4}`} role="img" aria-label=${label}>
    ${items.map((it, i) => {
      const share = it.limit ? Math.min(1, it.used / it.limit) : 0;
      const tone = share >= 1 ? "over" : share >= 0.8 ? "near" : "ok";
      return html`<g key=${i} transform=${`translate(0 ${i * row})`}>
        <text x="0" y="16" class="axis">${it.label}</text>
        <rect x="130" y="4" width="280" height="16" rx="3" class="bar-bg" />
        <rect x="130" y="4" width=${280 * share} height="16" rx="3" class=${`bar ${tone}`} />
        <text x="418" y="16" class="axis">${it.used}${it.limit ? ` / ${it.limit}` : " (no limit)"}</text>
      </g>`;
    })}</svg></figure>`;
}

// Values over time: points [{t, v}].
export function LineChart({ points, label }) {
  if (!points.length) return html`<p class="muted">No data yet.</p>`;
  const width = 520;
  const height = 140;
  const t0 = Math.min(...points.map((p) => p.t));
  const t1 = Math.max(t0 + 1, ...points.map((p) => p.t));
  const v1 = Math.max(1, ...points.map((p) => p.v));
  const x = (t) => 30 + ((t - t0) / (t1 - t0)) * (width - 40);
  const y = (v) => height - 20 - (v / v1) * (height - 30);
  const d = points.map((p, i) => `${i ? "L" : "M"}${x(p.t).toFixed(1)} ${y(p.v).toFixed(1)}`).join(" ");
  return html`<figure class="line"><svg viewBox=${`0 0 ${width} ${height}`} role="img" aria-label=${label}>
    <line x1="30" x2=${width - 10} y1=${height - 20} y2=${height - 20} class="axis-line" />
    <text x="0" y="14" class="axis">${v1}</text><text x="0" y=${height - 20} class="axis">0</text>
    <path d=${d} class="series" />
    ${points.map((p, i) => html`<circle key=${i} cx=${x(p.t)} cy=${y(p.v)} r="2.5" class="dot"><title>${p.v}</title></circle>`)}
  </svg><figcaption>${label}</figcaption></figure>`;
}
