// Server-sent events over fetch (EventSource cannot send the Authorization header, and tokens never
// go into URLs). Reconnects with Last-Event-ID after the server's retry delay. A stream the server
// closes with `event: revoked` stays closed: a revoked or expired token signs the user out, a removed
// membership leaves the page's stream "closed" (the next API call answers 404).
// Whatever changed before a stream opened (or while it reconnected) went by unheard: `onLive` runs
// each time it goes live, so a page reads again what it shows.
import { headers, session, tokenEnded } from "./api.js";

const TOKEN_ENDED = new Set(["token_revoked", "token_expired"]);

/**
 * @param {string} path under /api/v1
 * @param {(event: string, value: any) => void} onEvent
 * @param {{ onState?: (state: "live" | "reconnecting" | "closed") => void, onLive?: () => void }} [options]
 */
export function listen(path, onEvent, { onState = () => {}, onLive = () => {} } = {}) {
  let stopped = false;
  let lastId = null;
  let retry = 2000;
  let controller = null;
  let used = null;

  async function connect() {
    while (!stopped) {
      controller = new AbortController();
      try {
        const extra = { Accept: "text/event-stream" };
        if (lastId) extra["Last-Event-ID"] = lastId;
        used = session.token;
        const response = await fetch(`/api/v1${path}`, { headers: headers(extra), signal: controller.signal });
        if (response.status === 401 || response.status === 404) {
          onState("closed");
          if (response.status === 401) tokenEnded(used);
          return;
        }
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        onState("live");
        onLive();
        await read(response.body);
      } catch (error) {
        if (stopped) return;
      }
      if (stopped) return;
      onState("reconnecting");
      await new Promise((resolve) => setTimeout(resolve, retry));
    }
  }

  async function read(body) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        dispatch(block);
      }
    }
  }

  function dispatch(block) {
    let data = "";
    let event = "message";
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue;
      const [field, ...rest] = line.split(":");
      const value = rest.join(":").replace(/^ /, "");
      if (field === "id") lastId = value;
      else if (field === "event") event = value;
      else if (field === "data") data += value;
      else if (field === "retry" && /^\d+$/.test(value)) retry = Number(value);
    }
    if (!data) return;
    const value = JSON.parse(data);
    if (event === "revoked") {
      stopped = true;
      if (controller) controller.abort();
      onState("closed");
      if (TOKEN_ENDED.has(value.reason)) tokenEnded(used);
      return;
    }
    onEvent(event, value);
  }

  connect();
  return () => {
    stopped = true;
    if (controller) controller.abort();
  };
}
