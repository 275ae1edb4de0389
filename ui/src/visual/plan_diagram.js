// The plan diagram: the graph of plan_model.js laid out top to bottom by dagre and drawn as SVG.
// Nodes are keyboard-focusable (Tab; Enter or Space activates, like a click) and drawn at full size
// in a scrolling box, so a plan of fifty steps stays readable. Loaded only by pages that draw it.
import { layout, graphlib } from "@dagrejs/dagre";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 210;
const HEIGHT = 62;
const MODE_TEXT = { allow: "allow", require_approval: "require approval", deny: "deny", none: "no capability call" };
// How each kind of node is named to assistive technology, and the words on labelled edges.
const KIND_TEXT = { on_failure: "on failure step", branch: "branch", loop: "loop", wait: "wait", child: "child automation" };
const EDGE_TEXT = { then: "then", else: "else", each: "each item", repeat: "next item", done: "after the last" };

function svg(tag, attributes = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) if (value !== null && value !== undefined) el.setAttribute(key, String(value));
  for (const child of children) if (child !== null && child !== undefined) el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return el;
}

// Long ids and actions are cut to fit the box; the full text is in the node's accessible name.
function fit(text, room = 27) {
  return text.length > room ? `${text.slice(0, room - 1)}…` : text;
}

function modeText(mode) {
  if (mode === null || mode === undefined) return null;
  return MODE_TEXT[mode] || mode;
}

// `graph`: {nodes, edges} from planGraph. `onActivate(node)` is called on click, Enter and Space.
/**
 * @param {any} graph
 * @param {{onActivate?: (node: any) => void, label?: string}} [options]
 */
export function renderPlanDiagram(graph, { onActivate = (_node) => {}, label = "Plan diagram" } = {}) {
  const g = new graphlib.Graph();
  g.setGraph({ rankdir: "TB", nodesep: 36, ranksep: 34, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of graph.nodes) g.setNode(node.id, { width: WIDTH, height: HEIGHT });
  for (const edge of graph.edges) {
    const text = EDGE_TEXT[edge.kind];
    g.setEdge(edge.from, edge.to, text ? { kind: edge.kind, width: text.length * 7, height: 14, labelpos: "c" } : { kind: edge.kind });
  }
  layout(g);
  const { width, height } = g.graph();
  const marker = svg("marker", { id: "plan-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, svg("path", { d: "M0,0 L10,5 L0,10 z", class: "plan-arrowhead" }));
  const root = svg("svg", { class: "plan-diagram", width: Math.ceil(width), height: Math.ceil(height), viewBox: `0 0 ${Math.ceil(width)} ${Math.ceil(height)}`, role: "group", "aria-label": label }, svg("defs", {}, marker));
  for (const edge of graph.edges) {
    const placed = g.edge(edge.from, edge.to);
    const d = placed.points.map((p, index) => `${index ? "L" : "M"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ");
    root.append(svg("path", { d, class: `plan-edge plan-edge-${edge.kind}`, "marker-end": "url(#plan-arrow)", "data-from": edge.from, "data-to": edge.to }));
    const text = EDGE_TEXT[edge.kind];
    if (text && placed.x !== undefined) root.append(svg("text", { x: placed.x.toFixed(1), y: (placed.y + 4).toFixed(1), class: "plan-edge-label", "text-anchor": "middle" }, text));
  }
  for (const node of graph.nodes) {
    const place = g.node(node.id);
    const x = place.x - WIDTH / 2;
    const y = place.y - HEIGHT / 2;
    const mode = modeText(node.mode);
    const lines = [fit(node.title), fit(node.detail), mode ? fit(mode) : null].filter(Boolean);
    // The accessible name starts with the text as shown (cut names then in full), so what a screen
    // reader says and what a voice-control user reads match.
    const kind = KIND_TEXT[node.kind] || node.kind;
    const full = [node.title, node.detail].filter((text, index) => text && fit(text) !== lines[index]);
    const name = [lines.join(" "), kind, ...full].join(", ");
    const activatable = node.target !== null;
    const box = svg(
      "g",
      {
        class: `plan-node plan-node-${node.kind}${node.mode ? ` plan-mode-${node.mode}` : ""}`,
        transform: `translate(${x.toFixed(1)},${y.toFixed(1)})`,
        tabindex: activatable ? 0 : null,
        role: activatable ? "button" : "img",
        "aria-label": activatable ? `${name}, edit` : name,
        "data-node": node.id,
        "data-kind": node.kind,
        "data-mode": node.mode,
      },
      svg("rect", { width: WIDTH, height: HEIGHT, rx: 8, class: "plan-box" }),
      // A space after each line keeps the words apart in the node's text content.
      ...lines.map((line, index) => svg("text", { x: 10, y: 20 + index * 17, class: ["plan-title", "plan-detail", "plan-mode"][index] }, `${line} `)),
    );
    if (activatable) {
      box.addEventListener("click", () => onActivate(node));
      box.addEventListener("keydown", (event) => {
        if (event.key !== "Enter" && event.key !== " ") return;
        event.preventDefault();
        onActivate(node);
      });
    }
    root.append(box);
  }
  return root;
}
