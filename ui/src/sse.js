// Server-sent events over fetch (EventSource cannot send the Authorization header, and tokens never
// go into URLs). Reconnects with Last-Event-ID after the server's retry delay.
import { headers } from "./api.js";

export function listen(path, onEvent, { onState = () => {} } = {}) {
  let stopped = false;
  let lastId = null;
  let retry = 2000;
  let controller = null;

  async function connect() {
    while (!stopped) {
      controller = new AbortController();
      try {
        const extra = { Accept: "text/event-stream" };
        if (lastId) extra["Last-Event-ID"] = lastId;
        const response = await fetch(`/api/v1${path}`, { headers: headers(extra), signal: controller.signal });
        if (response.status === 401 || response.status === 404) {
          onState("closed");
          return;
        }
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        onState("live");
        await read(response.body);
      } catch (error) {
        if (stopped) return;
      }
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
    if (data) onEvent(event, JSON.parse(data));
  }

  connect();
  return () => {
    stopped = true;
    if (controller) controller.abort();
  };
}
