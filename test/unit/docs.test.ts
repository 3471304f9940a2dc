import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const TOP = ['core', 'handlers', 'infra', 'mcp', 'test', 'bench', 'docs', 'scripts'];
/** Files the tooling writes and git ignores (`npm run api:types`): named in prose, absent from a fresh clone. */
const GENERATED = new Set(['mcp/task-server-paths.ts']);
const exists = (p: string) => GENERATED.has(p) || existsSync(path.join(root, p));

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && keep(e.name))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

/** The text a reader takes as documentation: Markdown files, and the comments of source files (SQL's `--` lines). */
function prose(file: string): string {
  const text = readFileSync(path.join(root, file), 'utf8');
  if (file.endsWith('.md')) return text;
  const comment = file.endsWith('.sql') ? /^\s*--/ : /^\s*(\/\/|\/\*|\*)/;
  return text
    .split('\n')
    .filter((line) => comment.test(line))
    .join('\n');
}

/**
 * Repository paths named in prose: a top-level folder of this repository followed by path parts,
 * ending in a file name with an extension or in a folder slash. Patterns (`<area>`, `*`, `NNNN`)
 * are names of shapes, not of files, and are skipped.
 */
function namedPaths(text: string): string[] {
  const found = new Set<string>();
  const pattern = new RegExp(`(?<![\\w./-])(?:${TOP.join('|')})/[\\w./<>*{}-]*`, 'g');
  for (const [match] of text.matchAll(pattern)) {
    const candidate = match.replace(/[.,:;)]+$/, '');
    if (/[<>*{}]|NNNN|\.\.\./.test(candidate)) continue;
    if (!/\.[a-z]+$|\/$/.test(candidate)) continue; // a folder named without a slash reads as a word
    found.add(candidate);
  }
  return [...found];
}

const documents = [
  ...filesUnder('docs', (n) => n.endsWith('.md')),
  ...filesUnder('.', (n) => n === 'README.md').filter((f) => !f.startsWith('node_modules') && !f.startsWith('dist')),
];
const sources = TOP.filter((d) => d !== 'docs' && existsSync(path.join(root, d))).flatMap((d) =>
  filesUnder(d, (n) => /\.(ts|mjs|sql)$/.test(n)),
);

describe('docs that check themselves', () => {
  it('every repository path named in docs/, the READMEs and source comments exists', () => {
    const missing = [...documents, ...sources, 'esbuild.config.mjs'].flatMap((file) =>
      namedPaths(prose(file))
        .filter((p) => !exists(p))
        .map((p) => `${file} names ${p}`),
    );
    expect(missing).toEqual([]);
  });

  it('every file a folder README names in backticks (`store.ts`, `migrations/`) exists beside it', () => {
    const missing = documents
      .filter((file) => file.endsWith('README.md') && file.includes('/'))
      .flatMap((file) =>
        [...readFileSync(path.join(root, file), 'utf8').matchAll(/`([\w.-]+(?:\/[\w.-]+)*(?:\.(?:ts|md|mjs|json)|\/))`/g)]
          .map(([, name]) => name!)
          .filter((name) => !TOP.some((top) => name.startsWith(`${top}/`)) && !/^[A-Z_]+\//.test(name)) // DATA_DIR/… names a place at run time
          .filter((name) => !exists(path.join(path.dirname(file), name)) && !exists(name))
          .map((name) => `${file} names ${name}`),
      );
    expect(missing).toEqual([]);
  });

  it('every entry of the docs/api/ topics names the test file that proves it, and that file exists', () => {
    const topics = readdirSync(path.join(root, 'docs/api')).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect(topics.length).toBeGreaterThan(10);
    const bullets: string[] = [];
    for (const topic of topics) {
      let inEntry = false;
      for (const line of readFileSync(path.join(root, 'docs/api', topic), 'utf8').split('\n')) {
        if (line.startsWith('- ')) {
          bullets.push(line);
          inEntry = true;
        } else if (inEntry && /^\s+\S/.test(line)) bullets[bullets.length - 1] += ` ${line.trim()}`;
        else inEntry = false;
      }
    }
    expect(bullets.length).toBeGreaterThan(100);
    const named = (b: string) => [...b.matchAll(/test\/[\w/.-]+\.test\.ts/g)].map(([p]) => p);
    expect(bullets.filter((b) => named(b).length === 0).map((b) => b.slice(0, 100))).toEqual([]);
    expect(bullets.flatMap(named).filter((p) => !existsSync(path.join(root, p)))).toEqual([]);
  });
});
