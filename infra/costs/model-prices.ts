import { readFile, stat } from 'node:fs/promises';
import { parseModelPriceTable, type ModelPriceTable } from '../../core/costs/pricing';
import { config } from '../config';
import { logger } from '../logger';

let cached: { path: string; mtimeMs: number; table: ModelPriceTable } | undefined;

/**
 * The model price table of MODEL_PRICES_FILE, re-read when the file changes. No file configured,
 * or a missing or malformed file, gives an empty table: usage is then left unpriced (cost null),
 * never guessed. A malformed file is logged once per change.
 */
export async function loadModelPrices(file: string | undefined = config().modelPricesFile): Promise<ModelPriceTable> {
  if (!file) return {};
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(file)).mtimeMs;
  } catch {
    return {};
  }
  if (cached?.path === file && cached.mtimeMs === mtimeMs) return cached.table;
  let table: ModelPriceTable = {};
  try {
    table = parseModelPriceTable(JSON.parse(await readFile(file, 'utf8')));
  } catch (err) {
    logger().warn('MODEL_PRICES_FILE ignored: not a valid price table', { file, error: (err as Error).message });
  }
  cached = { path: file, mtimeMs, table };
  return table;
}
