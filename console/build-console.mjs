// Bundles the operator console (console/src) into dist/console/: index.html, config.json and
// assets/ with content-hashed names, plus dist/console.meta.json (esbuild's metafile, outside the
// served folder) from which test/browser/console-shell.test.ts reads the initial download's size.
// Screens imported with import() are split into chunks of their own, fetched on the first visit;
// the initial download is the entry script, the chunks it imports statically, and its stylesheet.
import { build } from 'esbuild';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Bundles the console into `<dist>/console`; answers the initial files' paths relative to it. */
export async function buildConsole(root, dist) {
  const outdir = path.join(dist, 'console');
  await mkdir(outdir, { recursive: true });
  const result = await build({
    entryPoints: { main: path.join(root, 'console/src/main.tsx') },
    bundle: true,
    format: 'esm',
    splitting: true,
    platform: 'browser',
    // light-dark() in the stylesheet sets the floor
    target: ['chrome123', 'firefox120', 'safari17.5'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: 'linked',
    entryNames: 'assets/[name]-[hash]',
    assetNames: 'assets/[name]-[hash]',
    chunkNames: 'assets/[name]-[hash]',
    outdir,
    metafile: true,
    absWorkingDir: root,
    logLevel: 'warning',
  });
  const outputs = Object.entries(result.metafile.outputs);
  const entry = outputs.find(([, o]) => o.entryPoint && o.entryPoint.endsWith('console/src/main.tsx'));
  if (!entry) throw new Error('console build produced no entry script');
  const [script, meta] = entry;
  const relative = (file) => path.relative(outdir, path.resolve(root, file)).split(path.sep).join('/');
  const staticChunks = meta.imports.filter((i) => i.kind === 'import-statement').map((i) => relative(i.path));
  const initial = { script: relative(script), chunks: staticChunks, style: meta.cssBundle ? relative(meta.cssBundle) : undefined };

  const template = await readFile(path.join(root, 'console/index.html'), 'utf8');
  // config.json is asked for as the HTML arrives, beside the bundle, not after the bundle has run
  // (src/config.ts reads it with a request the preload matches: same URL, mode and credentials)
  const html = template.replace('<!-- style -->', initial.style ? `<link rel="stylesheet" href="/${initial.style}">` : '').replace(
    '<!-- script -->',
    [
      '<link rel="preload" href="/config.json" as="fetch" crossorigin>',
      // the entry's shared chunks travel beside it rather than after it has been parsed
      ...initial.chunks.map((chunk) => `<link rel="modulepreload" href="/${chunk}">`),
      `<script type="module" src="/${initial.script}"></script>`,
    ].join('\n    '),
  );
  await writeFile(path.join(outdir, 'index.html'), html);
  // the runtime configuration: an empty apiBaseUrl is the console's own origin (docs/console.md)
  await writeFile(path.join(outdir, 'config.json'), `${JSON.stringify({ apiBaseUrl: '' }, null, 2)}\n`);
  await writeFile(path.join(dist, 'console.meta.json'), JSON.stringify({ initial, metafile: result.metafile }));
  return initial;
}
