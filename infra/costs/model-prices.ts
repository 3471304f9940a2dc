import { readFile } from 'node:fs/promises';
import { installModelPrices, parseModelPriceTable, type ModelPriceTable } from '../../core/costs/pricing';
import { logger } from '../logger';

/**
 * Reads the model price table of MODEL_PRICES_FILE and installs it for the pricing of usage
 * reports. No file configured, or a missing or malformed file, installs an empty table (with a
 * warning for a file that is there but unusable): usage is then left unpriced, never guessed.
 */
export async function installModelPricesFrom(file: string | undefined): Promise<ModelPriceTable> {
  let table: ModelPriceTable = {};
  if (file) {
    try {
      table = parseModelPriceTable(JSON.parse(await readFile(file, 'utf8')));
    } catch (err) {
      logger().warn('MODEL_PRICES_FILE not used: unreadable or not a price table; usage stays unpriced', { file, error: (err as Error).message });
    }
  }
  installModelPrices(table);
  return table;
}
