import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findAnyCycle, findCycle } from '../../core/tasks/graph';

describe('findCycle', () => {
  it('names the shortest cycle that new edges would close, start to start', () => {
    const edges = new Map([
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', ['a']],
    ]);
    expect(findCycle('a', ['b'], edges)).toEqual(['a', 'b', 'c', 'a']);
    expect(findCycle('a', ['d'], edges)).toEqual(['a', 'd', 'a']);
    expect(findCycle('a', ['a'], edges)).toEqual(['a', 'a']);
    expect(findCycle('x', ['b'], edges)).toBeNull();
    expect(findCycle('a', [], edges)).toBeNull();
  });

  it('finds a cycle exactly when the start is reachable from a new target, and every named step is an edge', () => {
    const graph = fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 7 })), { maxLength: 20 });
    fc.assert(
      fc.property(graph, fc.array(fc.integer({ min: 1, max: 7 }), { maxLength: 3 }), (pairs, targets) => {
        const edges = new Map<string, string[]>();
        for (const [from, to] of pairs) edges.set(String(from), [...(edges.get(String(from)) ?? []), String(to)]);
        const news = targets.map(String);
        const reach = new Set<string>();
        const stack = [...news];
        while (stack.length) {
          const n = stack.pop()!;
          if (reach.has(n)) continue;
          reach.add(n);
          if (n !== '0') stack.push(...(edges.get(n) ?? []));
        }
        const cycle = findCycle('0', news, edges);
        expect(cycle !== null).toBe(reach.has('0'));
        if (cycle) {
          expect(cycle[0]).toBe('0');
          expect(cycle.at(-1)).toBe('0');
          expect(news).toContain(cycle[1]);
          for (let i = 1; i < cycle.length - 1; i++) expect(edges.get(cycle[i]!) ?? []).toContain(cycle[i + 1]);
        }
      }),
    );
  });
});

describe('findAnyCycle', () => {
  /** Whether some node reachable from `starts` lies on a cycle, by repeatedly removing nodes with no outgoing edge left. */
  function hasReachableCycle(starts: string[], edges: Map<string, string[]>): boolean {
    const reach = new Set<string>();
    const stack = [...starts];
    while (stack.length) {
      const n = stack.pop()!;
      if (reach.has(n)) continue;
      reach.add(n);
      stack.push(...(edges.get(n) ?? []));
    }
    const alive = new Set(reach);
    for (let changed = true; changed;) {
      changed = false;
      for (const n of alive) {
        if (!(edges.get(n) ?? []).some((m) => alive.has(m))) {
          alive.delete(n);
          changed = true;
        }
      }
    }
    return alive.size > 0;
  }

  it('finds a cycle exactly when one is reachable, and names a closed path of real edges', () => {
    const graph = fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 })), { maxLength: 25 });
    fc.assert(
      fc.property(graph, fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 4 }), (pairs, roots) => {
        const edges = new Map<string, string[]>();
        for (const [from, to] of pairs) edges.set(String(from), [...(edges.get(String(from)) ?? []), String(to)]);
        const starts = roots.map(String);
        const cycle = findAnyCycle(starts, edges);
        expect(cycle !== null).toBe(hasReachableCycle(starts, edges));
        if (cycle) {
          expect(cycle[0]).toBe(cycle[cycle.length - 1]);
          for (let i = 0; i + 1 < cycle.length; i++) expect(edges.get(cycle[i]!)).toContain(cycle[i + 1]);
        }
      }),
    );
  });

  it('walks a chain of 100 000 nodes without overflowing the stack', () => {
    const edges = new Map<string, string[]>();
    for (let i = 0; i < 100_000; i++) edges.set(String(i), [String(i + 1)]);
    expect(findAnyCycle(['0'], edges)).toBeNull();
    edges.set('100000', ['0']);
    expect(findAnyCycle(['0'], edges)).toHaveLength(100_002);
  });
});
