import type { Db } from './ports';

export interface ListPage<Row> {
  rows: Row[];
  /** Every row the filter matches, not only those on the page. */
  total: number;
  /** More rows match than the page holds. */
  truncated: boolean;
}

/**
 * One page of a filtered list and the count of everything the filter matches. Two statements over
 * the same WHERE, run side by side: counting through a window function would make PostgreSQL read
 * and sort every match before it could stop at the LIMIT. `params` serve both; the page's limit is
 * appended as the next parameter.
 */
export async function pageAndTotal<Row>(
  db: Db,
  query: { select: string; from: string; where: string; orderBy: string },
  params: readonly unknown[],
  limit: number,
): Promise<ListPage<Row>> {
  const [page, count] = await Promise.all([
    db.query<Row>(`SELECT ${query.select} FROM ${query.from} WHERE ${query.where} ORDER BY ${query.orderBy} LIMIT $${params.length + 1}`, [
      ...params,
      limit,
    ]),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${query.from} WHERE ${query.where}`, params),
  ]);
  const total = count.rows[0]!.n;
  // a row committed between the two statements can make the count trail the page by a little
  return { rows: page.rows, total: Math.max(total, page.rows.length), truncated: total > page.rows.length };
}
