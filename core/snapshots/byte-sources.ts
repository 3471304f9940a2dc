import type { ByteSource } from '../ports';

/** A ByteSource over bytes already in memory (a restore request body). */
export function memorySource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    async read(position, length) {
      return bytes.subarray(position, Math.min(bytes.length, position + length));
    },
    async close() {},
  };
}

/** The part [start, end) of another source, addressed from 0 (the artifact inside a request envelope). */
export function sliceSource(source: ByteSource, start: number, end: number): ByteSource {
  return {
    size: end - start,
    read(position, length) {
      return source.read(start + position, Math.min(length, end - start - position));
    },
    close: () => source.close(),
  };
}
