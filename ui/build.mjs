// Bundles src/main.js with esbuild into ../app/ui/ (content-hashed assets) and writes index.html.
import { build } from "esbuild";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  target: ["es2020"],
  outdir: join(out, "assets"),
  entryNames: "[name]-[hash]",
  metafile: true,
  legalComments: "linked",
  logLevel: "warning",
});

const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
const script = outputs.find((name) => name.startsWith("main-") && name.endsWith(".js"));
const style = outputs.find((name) => name.startsWith("styles-") && name.endsWith(".css"));
const html = readFileSync(join(here, "src", "index.html"), "utf8")
  .replace("%SCRIPT%", `/assets/${script}`)
  .replace("%STYLE%", `/assets/${style}`);
writeFileSync(join(out, "index.html"), html);
console.log(`web UI built into app/ui/ (${script}, ${style})`);
