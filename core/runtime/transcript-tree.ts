import { isRecord } from './payload';

/**
 * The released runtime writes a transcript as a tree: each entry names its `parentId`, and a rewind
 * (or a branch) starts a new child of an earlier entry. The branch that was kept is the path from
 * the last entry written back to the root; entries off that path were rewound. Transcripts of the
 * contract carry no `parentId` and are one branch: nothing in them is rewound.
 */
export interface TranscriptTree {
  parents: Map<string, string | null>;
  /** The id of the last entry written, the leaf of the kept branch. */
  lastId: string | undefined;
  /** The kept branch for lastId, computed once per leaf. */
  kept?: { leaf: string; ids: Set<string> };
}

/** A transcript line as replay parses it (replay.ts's ParsedLine): its JSON value, or not JSON. */
export type TreeLine = { ok: true; value: unknown } | { ok: false };

export function emptyTree(): TranscriptTree {
  return { parents: new Map(), lastId: undefined };
}

/** The entry's place in the tree: its id and parent, when it has a `parentId` field (null at a root). */
export function treePlaceOf(parsed: TreeLine): { id: string; parentId: string | null } | undefined {
  if (!parsed.ok || !isRecord(parsed.value)) return undefined;
  const entry = parsed.value;
  if (typeof entry.id !== 'string' || !('parentId' in entry)) return undefined;
  return { id: entry.id, parentId: typeof entry.parentId === 'string' ? entry.parentId : null };
}

/** Notes one line, in order. */
export function noteTreeEntry(tree: TranscriptTree, parsed: TreeLine): void {
  const place = treePlaceOf(parsed);
  if (!place) return;
  tree.parents.set(place.id, place.parentId);
  tree.lastId = place.id;
}

/** Whether the entry of that id is off the kept branch; false for entries outside the tree. */
export function isRewound(tree: TranscriptTree, id: string | null | undefined): boolean {
  if (!id || !tree.lastId || !tree.parents.has(id)) return false;
  if (tree.kept?.leaf !== tree.lastId) {
    const ids = new Set<string>();
    // bounded by the number of entries: a cycle written by a broken runtime cannot loop forever
    for (let at: string | null | undefined = tree.lastId; at && !ids.has(at) && ids.size <= tree.parents.size; at = tree.parents.get(at))
      ids.add(at);
    tree.kept = { leaf: tree.lastId, ids };
  }
  return !tree.kept.ids.has(id);
}

/** The key that marks a line as an entry of the released runtime's tree, as it stands in the raw JSON text. */
export const PARENT_ID_NAME = '"parentId"';

/** Sets `rewound` on the events of tree entries: true off the kept branch. */
export function markRewound<T extends { entryId?: string; rewound?: boolean }>(events: T[], tree: TranscriptTree): T[] {
  for (const event of events) if (event.entryId !== undefined) event.rewound = isRewound(tree, event.entryId);
  return events;
}
