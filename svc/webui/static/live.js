// Keep a page live: reload its data when its event stream says something changed.
import { useEffect, useRef, useState } from "./vendor/htm-preact-3.1.1.js";
import { openStream } from "./stream.js";

export function useLive(path, matches, reload) {
  const [state, setState] = useState("connecting");
  const pending = useRef(null);
  useEffect(() => {
    if (!path) return undefined;
    const stream = openStream(path, {
      onState: (next) => {
        setState(next);
        // Whatever happened while disconnected: fetch afresh once live again.
        if (next === "live") reload();
      },
      onBatch: (events) => {
        if (!events.some((event) => matches(event.type || "", event))) return;
        // Many events in a burst: one reload per animation frame is enough.
        if (pending.current) return;
        pending.current = setTimeout(() => {
          pending.current = null;
          reload();
        }, 150);
      },
    });
    return () => {
      stream.close();
      clearTimeout(pending.current);
    };
  }, [path]);
  return state;
}
