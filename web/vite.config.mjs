// The browser labs' pages (pages/<lab>/index.html) built into dist/<lab>/, served by
// harness/browser.mjs; with `--ssr`, a lab's Node entry (pages/<lab>/node.ts) into dist-node/.
import { resolve } from "node:path";
import { defineConfig } from "vite";

const root = resolve(import.meta.dirname, "pages");
const labs = ["parse", "realtime", "wasm"];
/** Labs with a Node row (pages/<lab>/node.ts). */
const nodeLabs = ["parse"];

export default defineConfig(({ isSsrBuild }) => ({
  root,
  base: "./",
  logLevel: "warn",
  server: { fs: { allow: [resolve(import.meta.dirname, "..")] } },
  build: isSsrBuild
    ? {
        outDir: resolve(import.meta.dirname, "dist-node"),
        emptyOutDir: true,
        target: "node20",
        rollupOptions: {
          input: Object.fromEntries(nodeLabs.map((lab) => [`${lab}-node`, resolve(root, lab, "node.ts")])),
          output: { entryFileNames: "[name].js" },
        },
      }
    : {
        outDir: resolve(import.meta.dirname, "dist"),
        emptyOutDir: true,
        target: "es2022",
        rollupOptions: { input: Object.fromEntries(labs.map((lab) => [lab, resolve(root, lab, "index.html")])) },
      },
  // The wasm lab's Web Worker imports the lab's module (and its wasm builds): an ES module worker.
  worker: { format: "es" },
  // The Node build bundles every dependency, so dist-node runs without node_modules lookups.
  ssr: { noExternal: true },
}));
