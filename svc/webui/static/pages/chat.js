// One session: the transcript, the live run (streamed text, tool calls with their
// inputs and outputs, permission asks and questions answered inline), cancel,
// and the run timeline.
import { html, useEffect, useRef, useState } from "../vendor/htm-preact-3.1.1.js";
import { api, enc } from "../api.js";
import { openStream } from "../stream.js";
import { Badge, ErrorBox, Json, StreamState } from "../ui.js";
import { Timeline } from "../charts.js";

// The conversation as plain mutable data, rendered at most once per animation
// frame: a run may stream thousands of deltas, and the page must stay responsive.
function createModel() {
  return { messages: [], byId: new Map(), asks: new Map(), questions: new Map(),
    run: null, runStatus: null, spans: new Map(), runStart: null };
}

function message(model, id, role) {
  let entry = model.byId.get(id);
  if (!entry) {
    entry = { id, role, parts: [], partIndex: new Map() };
    model.byId.set(id, entry);
    model.messages.push(entry);
  }
  return entry;
}

function putPart(entry, part, delta) {
  const index = entry.partIndex.get(part.id);
  if (index === undefined) {
    entry.partIndex.set(part.id, entry.parts.length);
    entry.parts.push({ ...part, text: delta !== undefined ? delta : part.text });
    return;
  }
  const current = entry.parts[index];
  entry.parts[index] = delta !== undefined
    ? { ...current, text: (current.text || "") + delta }
    : { ...current, ...part };
}

function track(model, key, label, kind, at) {
  const span = model.spans.get(key);
  if (span) span.end = at;
  else model.spans.set(key, { label, kind, start: at, end: at });
}

function apply(model, event) {
  const p = event.properties || {};
  const at = (event.envelope && event.envelope.occurred_at_ms) || Date.now();
  switch (event.type) {
    case "session.run.started":
      model.run = p.runID;
      model.runStatus = "running";
      model.spans = new Map();
      model.runStart = at;
      break;
    case "message.part.updated": {
      const part = p.part;
      // Argument fragments of a tool call still being written, and the final
      // recap of the text already streamed, add nothing to what is shown.
      if (!part || p.toolCallDelta || String(part.id).endsWith("-final")) break;
      const role = part.id === `${part.messageID}-0` ? "user" : "assistant";
      putPart(message(model, part.messageID, role), part, p.delta);
      if (role === "assistant") {
        const label = part.type === "tool" ? part.tool || "tool" : "model";
        track(model, part.id, label, part.type === "tool" ? "tool" : "model", at);
      }
      break;
    }
    case "permission.asked":
      model.asks.set(p.id || p.requestID, { ...p, status: "pending" });
      break;
    case "permission.replied": {
      const ask = model.asks.get(p.requestID);
      if (ask) model.asks.set(p.requestID, { ...ask, status: p.reply });
      break;
    }
    case "question.asked":
      model.questions.set(p.id, { ...p, status: "pending" });
      break;
    case "question.replied": {
      const q = model.questions.get(p.id || p.questionID || p.requestID);
      if (q) model.questions.set(q.id, { ...q, status: "answered" });
      break;
    }
    case "session.run.finished":
      if (!model.run || p.runID === model.run) {
        model.runStatus = p.status;
        model.run = null;
        model.lastError = p.error || null;
      }
      break;
    default:
  }
}

function loadTranscript(model, transcript) {
  for (const m of transcript || []) {
    const entry = message(model, m.info.id, m.info.role);
    for (const [i, part] of (m.parts || []).entries()) putPart(entry, { id: part.id || `${m.info.id}-${i}`, ...part });
  }
}

function ToolPart({ part }) {
  const state = part.state || "pending";
  return html`<details class="tool" data-state=${state} data-tool=${part.tool} open=${state !== "completed"}>
    <summary><span class="tool-name">${part.tool}</span> <${Badge} value=${state} /></summary>
    ${part.args ? html`<div class="tool-io"><h4>Input</h4><${Json} value=${part.args} label="tool input" /></div>` : ""}
    ${part.result !== undefined && part.result !== null ? html`<div class="tool-io"><h4>Output</h4>
      <pre class="tool-output" tabindex="0">${typeof part.result === "string" ? part.result : JSON.stringify(part.result, null, 2)}</pre></div>` : ""}
    ${part.error ? html`<p class="error">${typeof part.error === "string" ? part.error : JSON.stringify(part.error)}</p>` : ""}
  </details>`;
}

function PermissionAsk({ ask, onReply }) {
  const pending = ask.status === "pending";
  return html`<div class="ask" role="group" aria-label=${`Permission for ${ask.tool}`} data-status=${ask.status}>
    <p><strong>Permission:</strong> the run wants to use <code>${ask.tool}</code></p>
    <${Json} value=${ask.args || {}} label="requested arguments" />
    ${pending ? html`<div class="actions">
        <button type="button" class="primary" onClick=${() => onReply(ask, "once")}>Allow once</button>
        <button type="button" onClick=${() => onReply(ask, "always")}>Always allow</button>
        <button type="button" class="danger" onClick=${() => onReply(ask, "reject")}>Deny</button>
      </div>` : html`<p class="muted">Answered: <${Badge} value=${ask.status} /></p>`}
  </div>`;
}

function QuestionAsk({ question, onAnswer }) {
  const [custom, setCustom] = useState("");
  const items = question.questions || [];
  const pending = question.status === "pending";
  return html`<div class="ask question" role="group" aria-label="Question from the run" data-status=${question.status}>
    ${items.map((q, i) => html`<div key=${i}><p><strong>${q.header || "Question"}:</strong> ${q.question}</p>
      ${pending ? html`<div class="actions">${(q.options || []).map((o) => html`<button type="button"
        title=${o.description || ""} onClick=${() => onAnswer(question, o.label)}>${o.label}</button>`)}</div>` : ""}</div>`)}
    ${pending ? html`<form class="inline" onSubmit=${(e) => { e.preventDefault(); onAnswer(question, custom); }}>
        <label for=${`q-${question.id}`}>Answer</label>
        <input id=${`q-${question.id}`} value=${custom} onInput=${(e) => setCustom(e.target.value)} />
        <button type="submit">Send answer</button>
        <button type="button" class="danger" onClick=${() => onAnswer(question, null)}>Decline</button>
      </form>` : html`<p class="muted">Answered.</p>`}
  </div>`;
}

export function ChatPage({ args }) {
  const id = args[0];
  const model = useRef(createModel()).current;
  const [, setVersion] = useState(0);
  const [session, setSession] = useState(null);
  const [streamState, setStreamState] = useState("connecting");
  const [ready, setReady] = useState(false);
  const [text, setText] = useState("");
  const [error, setError] = useState(null);
  const frame = useRef(0);
  const bottom = useRef(null);

  const redraw = () => {
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      setVersion((v) => v + 1);
    });
  };

  useEffect(() => {
    let stream = null;
    let live = true;
    (async () => {
      try {
        const [info, transcript, active, permissions, questions] = await Promise.all([
          api(`/session/${enc(id)}`), api(`/session/${enc(id)}/message`),
          api(`/session/${enc(id)}/run`).catch(() => ({ active: null })),
          api("/permission").catch(() => ({ requests: [] })), api("/question").catch(() => []),
        ]);
        if (!live) return;
        setSession(info);
        loadTranscript(model, transcript);
        if (active && active.active) {
          model.run = active.active.runID;
          model.runStatus = "running";
        }
        for (const r of (permissions && permissions.requests) || []) {
          if (r.sessionID === id && r.status === "pending") model.asks.set(r.id, r);
        }
        for (const q of questions || []) if (q.sessionID === id) model.questions.set(q.id, { ...q, status: "pending" });
        redraw();
      } catch (e) {
        setError(e);
      }
      if (!live) return;
      stream = openStream(`/event?sessionID=${enc(id)}`, {
        onState: (state) => {
          setStreamState(state);
          if (state === "live") setReady(true);
        },
        onBatch: (events) => {
          for (const event of events) apply(model, event);
          redraw();
        },
      });
    })();
    return () => {
      live = false;
      if (stream) stream.close();
      cancelAnimationFrame(frame.current);
    };
  }, [id]);

  useEffect(() => {
    if (bottom.current && model.run) bottom.current.scrollIntoView({ block: "end" });
  });

  const send = async (event) => {
    event.preventDefault();
    if (!text.trim()) return;
    setError(null);
    try {
      await api(`/session/${enc(id)}/prompt_async?return=run`, {
        method: "POST", body: { parts: [{ type: "text", text }] },
      });
      setText("");
    } catch (e) {
      setError(e);
    }
  };
  const cancel = () => api(`/session/${enc(id)}/cancel`, { method: "POST" }).catch(setError);
  const reply = (ask, word) =>
    api(`/permission/${enc(ask.id || ask.requestID)}/reply`, { method: "POST", body: { reply: word } })
      .then(() => { model.asks.set(ask.id || ask.requestID, { ...ask, status: word }); redraw(); })
      .catch(setError);
  const answer = (question, value) =>
    (value === null
      ? api(`/question/${enc(question.id)}/reject`, { method: "POST" })
      : api(`/question/${enc(question.id)}/reply`, { method: "POST", body: { answer: value } }))
      .then(() => { model.questions.set(question.id, { ...question, status: "answered" }); redraw(); })
      .catch(setError);

  const asksFor = (callID) => [...model.asks.values()].filter((a) => a.callID === callID);
  const looseAsks = [...model.asks.values()].filter((a) => a.status === "pending" &&
    !model.messages.some((m) => m.parts.some((p) => p.id === a.callID)));
  const running = model.runStatus === "running";
  return html`<div class="chat">
    <h1><a href="#/sessions" class="back" aria-label="Back to sessions">←</a>
      ${session ? session.title || id : "Session"} <${StreamState} state=${streamState} /></h1>
    <${ErrorBox} error=${error} />
    <ol class="transcript" aria-label="Conversation" aria-live="polite">
      ${model.messages.map((m) => html`<li key=${m.id} class=${`msg ${m.role}`} data-role=${m.role}>
        <span class="who">${m.role === "user" ? "You" : "Assistant"}</span>
        ${m.parts.map((part) => part.type === "tool"
          ? html`<${ToolPart} key=${part.id} part=${part} />${asksFor(part.id).map((a) =>
              html`<${PermissionAsk} key=${a.id} ask=${a} onReply=${reply} />`)}`
          : part.type === "text" ? html`<div key=${part.id} class="part-text">${part.text}</div>` : "")}
      </li>`)}
    </ol>
    ${looseAsks.map((a) => html`<${PermissionAsk} key=${a.id} ask=${a} onReply=${reply} />`)}
    ${[...model.questions.values()].filter((q) => q.status === "pending").map((q) =>
      html`<${QuestionAsk} key=${q.id} question=${q} onAnswer=${answer} />`)}
    <p class="run-status" role="status" data-status=${model.runStatus || "none"}>
      ${model.runStatus ? html`Run: <${Badge} value=${model.runStatus} />` : ""}
      ${model.lastError ? html` <span class="error small">${typeof model.lastError === "string" ? model.lastError : model.lastError.message || JSON.stringify(model.lastError)}</span>` : ""}
    </p>
    ${model.spans.size ? html`<${Timeline} spans=${[...model.spans.values()]} start=${model.runStart} />` : ""}
    <form class="composer" onSubmit=${send} aria-label="Send a prompt">
      <label for="prompt" class="sr-only">Prompt</label>
      <textarea id="prompt" rows="3" value=${text} placeholder="Ask something (Ctrl+Enter sends)"
        onInput=${(e) => setText(e.target.value)}
        onKeyDown=${(e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) send(e); }}></textarea>
      <div class="actions">
        <button type="submit" class="primary" disabled=${!ready || running}>Send</button>
        ${running ? html`<button type="button" class="danger" onClick=${cancel}>Cancel run</button>` : ""}
      </div>
    </form>
    <div ref=${bottom}></div>
  </div>`;
}
