import { mkdtemp, rm, writeFile, mkdir, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileNameIdSchema, parseSessionKey } from '../../core/runtime/ids';
import { pathInside, runtimeStateFiles } from '../../infra/runtime/state-files';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'state-files-'));
  await mkdir(path.join(root, 'agents', 'main', 'sessions'), { recursive: true });
});
afterAll(async () => rm(root, { recursive: true, force: true }));

async function lines(name: string, content: string, cap: number) {
  await writeFile(path.join(root, 'agents', 'main', 'sessions', `${name}.jsonl`), content);
  const t = await runtimeStateFiles(root, cap).openTranscript('main', name);
  const out: string[] = [];
  for await (const l of t!.lines) out.push(l);
  return { lines: out, truncated: t!.truncated };
}

describe('runtime state files', () => {
  it('keeps a line that ends exactly at the cap and drops one the cap cuts', async () => {
    expect(await lines('exact', 'aaa\nbbb\nccc\n', 8)).toEqual({ lines: ['aaa', 'bbb'], truncated: true });
    expect(await lines('cut', 'aaa\nbbb\nccc\n', 10)).toEqual({ lines: ['aaa', 'bbb'], truncated: true });
    expect(await lines('fits', 'aaa\nbbb\n', 8)).toEqual({ lines: ['aaa', 'bbb'], truncated: false });
    expect(await lines('no-final-newline', 'aaa\nbbb', 100)).toEqual({ lines: ['aaa', 'bbb'], truncated: false });
  });

  it('answers undefined for absent files and agents', async () => {
    const files = runtimeStateFiles(root, 100);
    expect(await files.openTranscript('main', 'absent')).toBeUndefined();
    expect(await files.openTranscript('ghost', 'absent')).toBeUndefined();
    expect(await files.readSessionIndex('ghost')).toBeUndefined();
    expect(await runtimeStateFiles(path.join(root, 'nowhere'), 1).listAgentIds()).toEqual([]);
  });

  it('refuses every segment that could leave the directory, even if the core let it through', () => {
    for (const bad of ['..', '../x', 'a/b', '/etc', 'a\\b', '.hidden', '', 'a..b']) {
      expect(() => pathInside(root, bad), bad).toThrow();
    }
    expect(pathInside(root, 'agents', 'main')).toBe(path.join(root, 'agents', 'main'));
  });

  it('the id schema never accepts a value that resolves outside the directory (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (candidate) => {
        if (!fileNameIdSchema.safeParse(candidate).success) return;
        const resolved = path.resolve(root, candidate);
        expect(path.dirname(resolved)).toBe(path.resolve(root));
      }),
      { numRuns: 500 },
    );
  });

  it('lists only agent directories with safe names', async () => {
    await mkdir(path.join(root, 'agents', 'writer'), { recursive: true });
    await writeFile(path.join(root, 'agents', 'not-a-dir'), '');
    await symlink('/etc', path.join(root, 'agents', 'linked')).catch(() => undefined);
    expect((await runtimeStateFiles(root, 1).listAgentIds()).sort()).toEqual(['main', 'writer']);
  });

  it('parses session keys agent:<agentId>:<kind>:<id>', () => {
    expect(parseSessionKey('agent:main:subagent:run-1:x')).toEqual({ agentId: 'main', kind: 'subagent', id: 'run-1:x' });
    expect(parseSessionKey('dashboard-agent')).toBeUndefined();
    expect(parseSessionKey('agent:..:main:x')).toBeUndefined();
    expect(parseSessionKey(null)).toBeUndefined();
  });
});
