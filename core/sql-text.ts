/**
 * Text written into SQL as literals, for the lists fixed in code (status groups, column names) where a
 * literal lets the planner match a partial index or keeps a fragment self-contained. Request data never
 * goes through here: it travels as parameters.
 */

/** `'it''s'`: a string literal. */
const quoteLiteral = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** `('a', 'b')`: a list for `IN`. */
export const sqlList = (values: readonly string[]): string => `(${values.map(quoteLiteral).join(', ')})`;

/** `ARRAY['a', 'b']::text[]`: an array for `= ANY(…)` and jsonb `-`. */
export const sqlTextArray = (values: readonly string[]): string => `ARRAY[${values.map(quoteLiteral).join(', ')}]::text[]`;
