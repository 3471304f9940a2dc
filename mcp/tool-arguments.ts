import * as z from 'zod';

/**
 * Argument schemas whose every message names the legal values or the whole range
 * ("limit must be an integer from 1 to 200"), whichever bound was broken.
 */
export function integerFrom(name: string, min: number, max: number) {
  const error = `${name} must be an integer from ${min} to ${max}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

export function oneOf<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  return z.enum(values, { error: `${name} must be one of ${values.join(', ')}` });
}

export function flag(name: string) {
  return z.boolean({ error: `${name} must be true or false` });
}

export function requiredText(name: string, max = 10_000) {
  const error = `${name} is required: a non-empty string of at most ${max} characters`;
  return z.string({ error }).trim().min(1, { error }).max(max, { error });
}

export function optionalText(name: string, max = 10_000) {
  const error = `${name} must be a string of at most ${max} characters`;
  return z.string({ error }).max(max, { error });
}

export function uuidArgument(name: string) {
  return z.uuid({ error: `${name} must be a UUID such as 123e4567-e89b-42d3-a456-426614174000` });
}

export function isoDay(name: string) {
  return z.iso.date({ error: `${name} must be a date in the form YYYY-MM-DD` });
}

/** Refuses unknown arguments, naming them and the legal ones. */
export function argumentsObject<Shape extends z.ZodRawShape>(shape: Shape) {
  const legal = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown argument ${issue.keys.join(', ')}; legal arguments: ${legal.length ? legal.join(', ') : 'none'}`
        : 'arguments must be an object',
  });
}

/** Validates tool arguments; the failure message lists every problem. */
export function checkArguments<S extends z.ZodType>(
  schema: S,
  args: unknown,
): { ok: true; value: z.output<S> } | { ok: false; message: string } {
  const result = schema.safeParse(args ?? {});
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, message: [...new Set(result.error.issues.map((i) => i.message))].join('; ') };
}
