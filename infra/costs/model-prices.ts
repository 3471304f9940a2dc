import { readFile } from 'node:fs/promises';
import type { ModelPriceTable } from '../../core/ports';
import { parseModelPriceTable } from '../../core/costs/pricing';
import { logger } from '../logger';

/**
 * Deps.prices: the model price table of MODEL_PRICES_FILE. No file configured, or a missing or
 * malformed file, gives an empty table (with a warning for a file that is there but unusable):
 * usage is then left unpriced, never guessed.
 */
export async function loadModelPrices(file: string | undefined): Promise<ModelPriceTable> {
  if (!file) return {};
  try {
    return parseModelPriceTable(JSON.parse(await readFile(file, 'utf8')));
  } catch (err) {
    logger().warn('MODEL_PRICES_FILE not used: unreadable or not a price table; usage stays unpriced', {
      file,
      error: (err as Error).message,
    });
    return {};
  }
}
