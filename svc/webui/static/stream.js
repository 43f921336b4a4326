// SSE over fetch (EventSource cannot send the token header). Resumes after a
// dropped connection with Last-Event-ID, so the log replays what was missed;
// a frame whose id was already seen is dropped, so every event arrives once.
import { apiBase, authHeaders } from "./api.js";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function openStream(path, { onEvent, onState = () => {}, onBatch }) {
  let lastId = null;
  let stopped = false;
  let controller = null;
  let attempt = 0;

  function dispatch(frame, batch) {
    let id = null;
    const data = [];
    for (const line of frame.split("\n")) {
      if (line.startsWith("id:")) id = Number(line.slice(3).trim());
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (!data.length) return; // a keep-alive comment
    if (id !== null && !Number.isNaN(id)) {
      if (lastId !== null && id <= lastId) return;
      lastId = id;
    }
    let event;
    try {
      event = JSON.parse(data.join("\n"));
    } catch {
      return;
    }
    batch.push(event);
  }

  async function run() {
    while (!stopped) {
      controller = new AbortController();
      const headers = authHeaders({ Accept: "text/event-stream" });
      if (lastId !== null) headers["Last-Event-ID"] = String(lastId);
      onState(attempt ? "reconnecting" : "connecting");
      try {
        const response = await fetch(apiBase + path, {
          headers, signal: controller.signal, cache: "no-store", credentials: "omit",
        });
        if (response.status === 401) {
          onState("unauthorized");
          return;
        }
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        attempt = 0;
        onState("live");
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value.replace(/\r\n?/g, "\n");
          const frames = buffer.split("\n\n");
          buffer = frames.pop();
          const batch = [];
          for (const frame of frames) dispatch(frame, batch);
          if (batch.length) {
            if (onBatch) onBatch(batch);
            else batch.forEach(onEvent);
          }
        }
      } catch (error) {
        if (stopped) return;
      }
      if (stopped) return;
      attempt += 1;
      onState("reconnecting");
      await sleep(Math.min(4000, 150 * 2 ** Math.min(attempt, 5)));
    }
  }

  run();
  return {
    close() {
      stopped = true;
      if (controller) controller.abort();
    },
    get lastId() {
      return lastId;
    },
  };
}
