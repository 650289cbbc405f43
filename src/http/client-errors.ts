import { maxHeaderSize, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../logger';
import { newRequestId, REQUEST_ID_HEADER } from './request-context';

interface Answer {
  status: number;
  reason: string;
  error: string;
  hint: string;
}

const HEADER_LIMIT_KB = Math.floor(maxHeaderSize / 1024);

/** Node's own answers to requests it refuses before Express sees them, in the contract's shape. */
const ANSWERS: Record<string, Answer> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    error: 'Request headers are too large.',
    hint: `The request line (with its URL) and the headers may take ${HEADER_LIMIT_KB} kB together: send long values in a JSON body.`,
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    status: 413,
    reason: 'Payload Too Large',
    error: 'Request chunk extensions are too large.',
    hint: 'Send the body without chunk extensions.',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    error: 'Request timed out.',
    hint: 'Send the whole request (headers and body) without pausing, then wait for the answer.',
  },
};
const MALFORMED: Answer = { status: 400, reason: 'Bad Request', error: 'Malformed HTTP request.', hint: 'Send an HTTP/1.1 request: a request line, headers as "Name: value", then the body.' };

/**
 * Answers what the HTTP parser refuses (headers or URL too large, a request that is not HTTP, a
 * request too slow to arrive) with a JSON `{error, hint, request_id}` as every other error, where
 * Node would send its bare status line. As Node does, nothing is written once an answer to a
 * request on the connection has begun, and the connection is closed after the answer.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // Node's own test: an answer already under way on this connection is not to be corrupted.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const answer = (error.code && ANSWERS[error.code]) || MALFORMED;
    const requestId = newRequestId();
    logger.info({ code: error.code, status: answer.status, request_id: requestId }, 'request refused by the HTTP parser');
    const body = JSON.stringify({ error: answer.error, hint: answer.hint, request_id: requestId });
    socket.end(
      [
        `HTTP/1.1 ${answer.status} ${answer.reason}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Cache-Control: no-store',
        'X-Content-Type-Options: nosniff',
        `${REQUEST_ID_HEADER}: ${requestId}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
}
