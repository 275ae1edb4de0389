// Bundles src/main.js with esbuild into ../app/ui/ (content-hashed assets) and writes index.html.
// Code splitting: what only some pages need (the diagram layout, the charts) is imported dynamically
// and lands in its own chunk beside the entry in assets/, fetched the first time such a page opens.
import { build } from "esbuild";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "app", "ui");
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "assets"), { recursive: true });

const result = await build({
  entryPoints: [join(here, "src", "main.js"), join(here, "src", "styles.css")],
  bundle: true,
  minify: true,
  format: "esm",
  splitting: true,
  chunkNames: "[name]-[hash]",
  target: ["es2020"],
  outdir: join(out, "assets"),
  entryNames: "[name]-[hash]",
  metafile: true,
  legalComments: "linked",
  logLevel: "warning",
});

const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));

// The JavaScript a first visit loads: the entry and every chunk it imports statically, gzip-compressed.
function firstLoad(entry) {
  const seen = new Set();
  const visit = (path) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const imported of result.metafile.outputs[path].imports || [])
      if (imported.kind === "import-statement" && !imported.external) visit(imported.path);
  };
  visit(entry);
  return [...seen].reduce((sum, path) => sum + gzipSync(readFileSync(path)).length, 0);
}
const entryPath = Object.keys(result.metafile.outputs).find((path) => /\/main-[^/]*\.js$/.test(path));
const lazy = Object.keys(result.metafile.outputs).filter((path) => path.endsWith(".js") && path !== entryPath);
const script = outputs.find((name) => name.startsWith("main-") && name.endsWith(".js"));
const style = outputs.find((name) => name.startsWith("styles-") && name.endsWith(".css"));
const html = readFileSync(join(here, "src", "index.html"), "utf8")
  .replace("%SCRIPT%", `/assets/${script}`)
  .replace("%STYLE%", `/assets/${style}`);
writeFileSync(join(out, "index.html"), html);
console.log(`web UI built into app/ui/ (${script}, ${style}); first load ${(firstLoad(entryPath) / 1024).toFixed(1)} KB of gzip-compressed JavaScript`);
for (const path of lazy) console.log(`  chunk ${basename(path)}: ${(gzipSync(readFileSync(path)).length / 1024).toFixed(1)} KB gzip`);
