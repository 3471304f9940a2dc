import { describe, expect, it } from 'vitest';
import type { Db } from '../../core/ports';
import { updateRunBatch } from '../../core/workflows/run-audit';

/** A batch's audit copies are written without the redaction pass: a batch may not assign what that pass would change. */
describe('updateRunBatch', () => {
  const deps = { ids: { uuid: () => '00000000-0000-4000-8000-000000000000' }, events: { publish: async () => undefined } } as never;
  const refusingDb = {
    query: async () => {
      throw new Error('no statement may be sent');
    },
  } as unknown as Db;
  const batch = (column: string) =>
    updateRunBatch(deps, refusingDb, new Date(), {
      assignments: { [column]: "'x'" },
      ids: ['00000000-0000-4000-8000-000000000001'],
      actor: 'a',
      action: 'b',
    });

  it('refuses to assign a JSON-object column or a secret-named one, before any statement', async () => {
    for (const column of ['input_payload', 'output_summary', 'metadata', 'api_token', 'password']) {
      await expect(batch(column), column).rejects.toThrow(`a run batch cannot assign ${column}`);
    }
  });

  it('sends nothing for an empty batch', async () => {
    await expect(
      updateRunBatch(deps, refusingDb, new Date(), { assignments: { status: "'x'" }, ids: [], actor: 'a', action: 'b' }),
    ).resolves.toEqual([]);
  });
});
