/**
 * The structural characters of JSON as byte (and UTF-16 code unit) values, for the scanners that
 * walk JSON text without parsing it (the nesting limit of core/validation.ts, the artifact scanner
 * of core/snapshots/json-scanner.ts). All are ASCII, and no byte of a multi-byte UTF-8 sequence is
 * below 0x80, so they are found the same way in bytes and in strings.
 */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;
