// A tiny element builder: h("button", {onclick, class: "x"}, "text", child). No innerHTML anywhere,
// so text from the API can never become markup.
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

export function when(iso) {
  if (!iso) return "—";
  const date = new Date(iso);
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

export function statusBadge(status) {
  return h("span", { class: `badge status-${status}`, "data-status": status }, status);
}

export function errorBox(error) {
  const details = (error && error.details) || [];
  return h(
    "div",
    { class: "error", role: "alert" },
    h("strong", {}, error && error.code ? `${error.code}: ` : "Error: "),
    (error && error.message) || String(error),
    details.length ? h("ul", {}, details.map((d) => h("li", {}, h("code", {}, d.path || "/"), " ", d.message))) : null,
  );
}

export function loading(text = "Loading…") {
  return h("p", { class: "loading", role: "status" }, text);
}

export function empty(text, ...actions) {
  return h("div", { class: "empty" }, h("p", {}, text), actions);
}

export function pretty(value) {
  return h("pre", { class: "json", tabindex: "0" }, JSON.stringify(value, null, 2));
}

/**
 * What a page last painted from the API, by value. `same(data)` answers true when `data` is what was
 * painted last (and remembers it otherwise): a read that finds nothing new, like the one a live stream's
 * opening asks for, then repaints nothing and leaves whatever the user is doing on the page alone.
 * `forget()` when something else was painted in its place (an error).
 */
export function lastPainted() {
  let last = null;
  return {
    /** @param {unknown} data */
    same(data) {
      const key = JSON.stringify(data);
      if (key === last) return true;
      last = key;
      return false;
    },
    forget() {
      last = null;
    },
  };
}

// Replace an element's children (null, false and undefined children are left out).
export function fill(el, ...children) {
  return append(clear(el), children);
}
