import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * `import { z } from 'zod'` (or a default import) pulls all of zod 4, locales included, into every
 * Lambda bundle; `import * as z from 'zod'` lets esbuild keep only what is used (about half the
 * bundle). This keeps every source file on the namespace form.
 */
const ROOTS = ['core', 'handlers', 'infra', 'mcp', 'bench', 'test'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'fixtures' ? [] : sourceFiles(full);
    return /\.(ts|mts|mjs|js)$/.test(entry.name) ? [full] : [];
  });
}

/** Every import or re-export of zod or one of its subpaths, as written. */
const ZOD_IMPORT = /(?:import|export)\s+(?:type\s+)?([^'";]*?)\s+from\s+['"](zod(?:\/[^'"]*)?)['"]/g;

describe('zod imports', () => {
  // this file quotes the forbidden forms as examples
  const files = ROOTS.flatMap(sourceFiles).filter((f) => path.resolve(f) !== fileURLToPath(import.meta.url));

  it('finds the sources it checks', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((f) => readFileSync(f, 'utf8').includes("from 'zod'"))).toBe(true);
  });

  it("are all `import * as z from 'zod'` (types may be imported by name)", () => {
    const offending: string[] = [];
    for (const file of files) {
      for (const match of readFileSync(file, 'utf8').matchAll(ZOD_IMPORT)) {
        const [statement, clause = '', specifier] = match;
        const typeOnly = /^(?:import|export)\s+type\s/.test(statement);
        if (specifier === 'zod' && (/^\*\s+as\s+z$/.test(clause.trim()) || typeOnly)) continue;
        offending.push(`${file}: ${statement.replace(/\s+/g, ' ')}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('the check itself catches the forms that defeat tree-shaking', () => {
    const bad = ["import { z } from 'zod';", "import z from 'zod';", "import * as zod from 'zod/v4';", "export { z } from 'zod';"];
    for (const line of bad) {
      const [match] = [...line.matchAll(ZOD_IMPORT)];
      expect(match, line).toBeDefined();
      const ok = match![2] === 'zod' && /^\*\s+as\s+z$/.test((match![1] ?? '').trim());
      expect(ok, line).toBe(false);
    }
  });
});
