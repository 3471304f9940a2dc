import { createHash } from 'node:crypto';
import * as z from 'zod';
import { ArtifactCorruptError, InvalidManifestError, PayloadTooLargeError, ValidationError, type ValidationIssue } from '../errors';
import { isPasswordSetting } from '../settings/catalog';
import { canonicalJson } from '../snapshots/canonical-json';
import { JsonScanner, type Span } from '../snapshots/json-scanner';
import { openSnapshot } from '../snapshots/list-snapshots';
import { manifestSchema, type Manifest } from '../snapshots/manifest';
import type { ByteSource, SnapshotPorts } from '../ports';
import { sliceSource } from '../snapshots/byte-sources';
import { primaryKeyText, snapshotTableByName, type SnapshotTable } from '../snapshots/tables';
import { parseInput, uuidSchema } from '../validation';

/**
 * Reading a restore request without building it in memory (spec 02 "Preview validation order"):
 * 1. the envelope {artifact | snapshot_id, mode?, restoreId?}: its small members are parsed, the
 *    artifact member is only located (a span of the body);
 * 2. the artifact's layout: the manifest and settings parsed, each table located;
 * 3. verification: every row parsed once, in canonical table order, into a running SHA-256 of
 *    canonical {settings, tables}; counts, row shape and key uniqueness checked on the way.
 * Memory: one 1 MB window, one row, and one table's primary-key set at a time.
 */

/** The largest envelope member other than the artifact (mode, restoreId, snapshot_id). */
const SMALL_MEMBER_BYTES = 64 * 1024;

export interface ArtifactLayout {
  manifest: Manifest;
  settings: Record<string, unknown>;
  /** Where each table's array lies, by table name. */
  tables: Map<string, Span>;
  scanner: JsonScanner;
  source: ByteSource;
}

export interface RestoreEnvelope {
  fields: Record<string, unknown>;
  artifact?: Span;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Step 1: the envelope members; a body above maxBytes is refused before anything is read. */
export async function readEnvelope(body: ByteSource, maxBytes: number): Promise<{ envelope: RestoreEnvelope; scanner: JsonScanner }> {
  if (body.size > maxBytes)
    throw new PayloadTooLargeError('payload_too_large', { message: `request body above ${maxBytes} bytes`, limit: maxBytes });
  if (body.size === 0)
    throw new ValidationError('invalid restore request: send {artifact} or {snapshot_id}', [{ path: 'request', message: 'empty body' }]);
  const scanner = new JsonScanner(body);
  const fields: Record<string, unknown> = {};
  let artifact: Span | undefined;
  await scanner.document(async (key, span) => {
    if (key in fields || (key === 'artifact' && artifact)) {
      throw new ValidationError(`invalid restore request: member ${key} appears twice`, [{ path: key, message: 'duplicate member' }]);
    }
    if (key === 'artifact') {
      artifact = span;
      return;
    }
    if (span.end - span.start > SMALL_MEMBER_BYTES)
      throw new ValidationError(`invalid restore request: ${key} is too long`, [{ path: key, message: 'too long' }]);
    fields[key] = await scanner.parse(span);
  });
  return { envelope: { fields, artifact }, scanner };
}

export const previewRequestSchema = z.strictObject({ snapshot_id: z.string().optional() });
export const applyRequestSchema = z.strictObject({
  snapshot_id: z.string().optional(),
  mode: z.enum(['merge', 'replace']).default('merge'),
  restoreId: uuidSchema,
});

/** The artifact a request names: its own member, or the stored file of snapshot_id. */
export async function artifactSource(
  deps: SnapshotPorts,
  body: ByteSource,
  envelope: RestoreEnvelope,
  snapshotId: string | undefined,
): Promise<ByteSource> {
  if (envelope.artifact && snapshotId !== undefined) {
    throw new ValidationError('invalid restore request: send either artifact or snapshot_id, not both', [
      { path: 'artifact', message: 'conflicts with snapshot_id' },
    ]);
  }
  if (envelope.artifact) return sliceSource(body, envelope.artifact.start, envelope.artifact.end);
  if (snapshotId === undefined) {
    throw new ValidationError('invalid restore request: send {artifact} or {snapshot_id}', [
      { path: 'artifact', message: 'required (or snapshot_id)' },
    ]);
  }
  const { source } = await openSnapshot(deps, snapshotId);
  return source;
}

function manifestIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((i) => ({ path: ['manifest', ...i.path.map(String)].join('.'), message: i.message }));
}

/** Step 2: manifest structure (400 invalid_manifest), nothing else read yet. */
export async function readLayout(source: ByteSource): Promise<ArtifactLayout> {
  const scanner = new JsonScanner(source);
  if ((await scanner.byteAt(await scanner.skipWhitespace(0))) !== 0x7b)
    throw new InvalidManifestError('the artifact must be a JSON object', [{ path: 'artifact', message: 'not an object' }]);
  let manifest: unknown;
  let settings: unknown;
  let tables: Map<string, Span> | undefined;
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  await scanner.document(async (key, span) => {
    if (seen.has(key)) issues.push({ path: key, message: 'appears twice' });
    seen.add(key);
    if (key === 'manifest') manifest = await scanner.parse(span);
    else if (key === 'settings') settings = await scanner.parse(span);
    else if (key === 'tables') {
      tables = new Map();
      if ((await scanner.byteAt(span.start)) !== 0x7b) {
        issues.push({ path: 'tables', message: 'must be an object of arrays' });
        return;
      }
      await scanner.members(span.start, async (name, tableSpan) => {
        if (!snapshotTableByName.has(name)) issues.push({ path: `tables.${name}`, message: 'not a table snapshots carry' });
        else if (tables!.has(name)) issues.push({ path: `tables.${name}`, message: 'appears twice' });
        else if ((await scanner.byteAt(tableSpan.start)) !== 0x5b)
          issues.push({ path: `tables.${name}`, message: 'must be an array of rows' });
        else tables!.set(name, tableSpan);
      });
    } else issues.push({ path: key, message: 'unknown member (an artifact holds manifest, tables, settings)' });
  });
  const parsed = manifestSchema.safeParse(manifest);
  if (!parsed.success)
    issues.push(...(manifest === undefined ? [{ path: 'manifest', message: 'required' }] : manifestIssues(parsed.error)));
  if (!tables) issues.push({ path: 'tables', message: 'required' });
  if (!isPlainObject(settings)) issues.push({ path: 'settings', message: settings === undefined ? 'required' : 'must be an object' });
  if (parsed.success && tables) {
    for (const name of Object.keys(parsed.data.counts)) {
      if (!tables.has(name)) issues.push({ path: `manifest.counts.${name}`, message: 'names a table the artifact does not hold' });
    }
    for (const name of tables.keys()) {
      if (!(name in parsed.data.counts)) issues.push({ path: `manifest.counts.${name}`, message: 'missing' });
    }
  }
  if (issues.length) {
    throw new InvalidManifestError(`invalid artifact: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  }
  return { manifest: parsed.data!, settings: settings as Record<string, unknown>, tables: tables!, scanner, source };
}

/** The rows of one table of the artifact, parsed one by one, in batches. */
export async function* tableRows(layout: ArtifactLayout, name: string, batchSize: number): AsyncGenerator<Array<Record<string, unknown>>> {
  const span = layout.tables.get(name);
  if (!span) return;
  let batch: Array<Record<string, unknown>> = [];
  for await (const element of layout.scanner.elements(span.start)) {
    batch.push((await layout.scanner.parse(element)) as Record<string, unknown>);
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

function rowIssue(table: SnapshotTable, index: number, row: unknown, keys: Set<string>): string | null {
  if (!isPlainObject(row)) return `tables.${table.name}[${index}] is not an object`;
  for (const column of table.primaryKey) {
    if (row[column] === null || row[column] === undefined) return `tables.${table.name}[${index}] has no ${column}`;
  }
  const key = primaryKeyText(table, row);
  if (keys.has(key)) return `tables.${table.name}[${index}] repeats the primary key ${key}`;
  keys.add(key);
  return null;
}

/**
 * Step 3: content_hash and counts (400 artifact_corrupt), then row shape (400 invalid_manifest),
 * all before the database is touched.
 */
export async function verifyArtifact(layout: ArtifactLayout): Promise<void> {
  const hash = createHash('sha256');
  hash.update(`{"settings":${canonicalJson(layout.settings)},"tables":{`);
  const names = [...layout.tables.keys()].sort();
  const countIssues: string[] = [];
  let rowProblem: string | null = null;
  for (const [i, name] of names.entries()) {
    hash.update(`${i ? ',' : ''}${JSON.stringify(name)}:[`);
    const table = snapshotTableByName.get(name)!;
    const keys = new Set<string>();
    let count = 0;
    for await (const element of layout.scanner.elements(layout.tables.get(name)!.start)) {
      const row = await layout.scanner.parse(element);
      rowProblem ??= rowIssue(table, count, row, keys);
      hash.update(`${count ? ',' : ''}${canonicalJson(row)}`);
      count++;
    }
    hash.update(']');
    if (layout.manifest.counts[name] !== count)
      countIssues.push(`${name}: manifest says ${layout.manifest.counts[name]}, the table holds ${count}`);
  }
  hash.update('}}');
  const digest = hash.digest('hex');
  if (digest !== layout.manifest.content_hash) {
    throw new ArtifactCorruptError(
      `content_hash mismatch: the manifest says ${layout.manifest.content_hash}, the content hashes to ${digest}`,
    );
  }
  if (countIssues.length) throw new ArtifactCorruptError(`manifest counts disagree with the tables (${countIssues.join('; ')})`);
  if (rowProblem)
    throw new InvalidManifestError(`invalid artifact: ${rowProblem}`, [{ path: rowProblem.split(' ')[0]!, message: rowProblem }]);
}

/** Settings rule of spec 02: a section holding any password-type key is dropped whole. */
export function settingsSectionDropped(settings: Record<string, unknown>): boolean {
  return Object.keys(settings).some(isPasswordSetting);
}

/** Steps 1 to 3 for either endpoint; returns the parsed request fields and the verified layout. */
export async function readRestoreRequest<S extends z.ZodType>(
  deps: SnapshotPorts,
  body: ByteSource,
  maxBytes: number,
  schema: S,
): Promise<{ request: z.output<S>; layout: ArtifactLayout }> {
  const { envelope } = await readEnvelope(body, maxBytes);
  const request = parseInput(schema, envelope.fields, 'restore request') as z.output<S> & { snapshot_id?: string };
  const source = await artifactSource(deps, body, envelope, request.snapshot_id);
  try {
    const layout = await readLayout(source);
    await verifyArtifact(layout);
    return { request, layout };
  } catch (err) {
    await source.close();
    throw err;
  }
}
