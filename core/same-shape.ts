/**
 * True when two types have the same keys and each is assignable to the other: a zod schema's output
 * checked against the type a port declares (`const ok: SameShape<z.infer<typeof s>, PortType> = true`),
 * so a field added to one and not the other does not compile.
 */
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
export type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? SameKeys<A, B> : false) : false;
