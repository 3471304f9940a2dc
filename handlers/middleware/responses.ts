import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ResponseTooLargeError } from '../../core/errors';
import { pushJsonItems } from '../../core/tasks/task-json';

export type HttpResult = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  headers: Record<string, string>;
  /**
   * A body too large to hold in memory. The local runner pipes it to the socket as it is read;
   * anywhere else (Lambda, direct handler calls) httpHandler collects it into `body` first.
   */
  bodyStream?: AsyncIterable<Uint8Array>;
  /**
   * A body already written as UTF-8 bytes (jsonPieces). The local runner sends it as it is;
   * anywhere else httpHandler turns it into `body` first, as it collects a stream.
   */
  bodyBytes?: Uint8Array;
};

/**
 * What an endpoint answers: an HttpResult whose status may be left to its route row. Without one
 * (`json(body)`), the envelope of handlers/middleware/http-handler.ts gives it the row's first
 * success status, 200 when the row lists none.
 */
export type EndpointResult = Omit<HttpResult, 'statusCode'> & { statusCode?: number };

/** Set on the Lambda context by an invoker that writes `bodyStream` and `bodyBytes` itself (the local runner). */
export interface BodyStreamingContext {
  acceptsBodyStream?: boolean;
}

/** A response whose body is streamed (see HttpResult.bodyStream). */
export function streamed(statusCode: number, chunks: AsyncIterable<Uint8Array>, headers: Record<string, string>): HttpResult {
  return { statusCode, headers, bodyStream: chunks };
}

/**
 * The most body a non-streaming answer carries: a synchronous Lambda response is capped at 6 MB in
 * all, so a larger body would be lost to an opaque gateway error; this leaves room for the rest.
 */
export const COLLECTED_BODY_MAX_BYTES = 5.5 * 1024 * 1024;

function tooLargeToCollect(): ResponseTooLargeError {
  return new ResponseTooLargeError(
    `the answer is larger than ${COLLECTED_BODY_MAX_BYTES} bytes, more than a Lambda response can carry; the local runner (npm start) streams it, or narrow the request`,
    { limit: COLLECTED_BODY_MAX_BYTES },
  );
}

/**
 * Reads a streamed body (or a body of bytes) into a string, for invokers that cannot stream. A body
 * beyond COLLECTED_BODY_MAX_BYTES is not sent half-way: it becomes a 413 that says where it can be had.
 */
export async function collectBodyStream<T extends EndpointResult>(result: T): Promise<T> {
  if (result.bodyBytes) {
    if (result.bodyBytes.byteLength > COLLECTED_BODY_MAX_BYTES) throw tooLargeToCollect();
    const { bodyBytes, ...rest } = result;
    return { ...rest, body: Buffer.from(bodyBytes.buffer, bodyBytes.byteOffset, bodyBytes.byteLength).toString('utf8') } as T;
  }
  if (!result.bodyStream) return result;
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of result.bodyStream) {
    size += chunk.byteLength;
    if (size > COLLECTED_BODY_MAX_BYTES) {
      // leaving the loop closes the stream (a file, a paged query) behind it
      throw tooLargeToCollect();
    }
    parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  const { bodyStream: _consumed, ...rest } = result;
  return { ...rest, body: Buffer.concat(parts).toString('utf8') } as T;
}

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

/**
 * A JSON response. Dates serialize as ISO 8601 strings. `json(body)` answers the route row's
 * status; `json(status, body)` names it, for a route with two success statuses and for errors.
 */
export function json(body: unknown): EndpointResult;
export function json(statusCode: number, body: unknown, headers?: Record<string, string>): HttpResult;
export function json(...args: [unknown] | [number, unknown, Record<string, string>?]): EndpointResult {
  if (args.length === 1) return { headers: { ...JSON_TYPE }, body: JSON.stringify(args[0]) };
  const [statusCode, body, headers = {}] = args;
  return { statusCode, headers: { ...JSON_TYPE, ...headers }, body: JSON.stringify(body) };
}

/**
 * Strings' UTF-8 bytes one after another, written straight into one buffer: joining a large
 * answer's pieces into one string first (a page of 2,000 tasks is ~1.3 MB) made a string of its
 * own to copy and collect, besides the bytes.
 */
export function utf8Of(pieces: readonly string[]): Buffer {
  let size = 0;
  for (const piece of pieces) size += Buffer.byteLength(piece);
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  for (const piece of pieces) at += bytes.write(piece, at);
  return bytes;
}

/**
 * A JSON response whose text comes in pieces (a list built as JSON text, core/tasks/task-json.ts),
 * sent as their bytes: no joined string, and none for the socket to flatten and encode again
 * (GET /api/views/board of 1,000 tasks, ~650 KB: ~9.2 → ~8.2 ms).
 */
export function jsonPieces(pieces: readonly string[]): EndpointResult {
  return { headers: { ...JSON_TYPE }, bodyBytes: utf8Of(pieces) };
}

/** A JSON array response written page by page, for listings of any length: each page holds its items' JSON texts. Its status is the row's. */
export function streamedJsonArray(pages: AsyncIterable<readonly string[]>): EndpointResult {
  async function* chunks(): AsyncGenerator<Uint8Array> {
    let first = true;
    for await (const page of pages) {
      if (!page.length) continue;
      // the source may have started reading its next page: let that statement go out before this
      // page's work, so the database builds it meanwhile (/api/tasks/all over 50,000 tasks: ~380 → ~310 ms;
      // pages of 2000 rather than 1000: ~300 ms)
      await new Promise((resolve) => setImmediate(resolve));
      const pieces = [first ? '[' : ','];
      pushJsonItems(pieces, page);
      yield utf8Of(pieces);
      first = false;
    }
    yield Buffer.from(first ? '[]' : ']');
  }
  return { headers: { ...JSON_TYPE }, bodyStream: chunks() };
}

/** A text response written piece by piece as its source reads it (a CSV export), each piece sent as its UTF-8 bytes. Its status is the row's. */
export function streamedText(pieces: AsyncIterable<string>, headers: Record<string, string>): EndpointResult {
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for await (const piece of pieces) yield Buffer.from(piece);
  }
  return { headers, bodyStream: chunks() };
}
