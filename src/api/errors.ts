/** A failed call to the Data or Metrics API. The message never holds the API key (a header). */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    message: string,
    readonly details: {
      api: string;
      endpoint: string;
      /** HTTP status, or undefined for a network error or a bad body. */
      status?: number;
      serviceMessage?: string;
      /** The body was the service's own error shape ({message, error, statusCode}). */
      serviceError?: boolean;
      retryable: boolean;
      retryAfterMs?: number;
      /** Bounded label for avawatch_api_requests_total{code}. */
      code: string;
      /** A network error's words (`connection refused`), when it has them. */
      network?: string;
    },
  ) {
    super(message);
  }

  get retryable(): boolean {
    return this.details.retryable;
  }
}

// undici's and Node's codes for a connection that failed, in a person's words.
const NETWORK_WORDS: Record<string, string> = {
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CLOSED: 'connection closed',
  ECONNRESET: 'connection closed',
  EPIPE: 'connection closed',
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'DNS failed',
  EAI_AGAIN: 'DNS failed',
  UND_ERR_CONNECT_TIMEOUT: 'timed out',
  ETIMEDOUT: 'timed out',
  UND_ERR_HEADERS_TIMEOUT: 'timed out',
  UND_ERR_BODY_TIMEOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'answer cut short',
  EPROTO: 'TLS failed',
};

/** `connection closed` for UND_ERR_SOCKET; TLS codes read `TLS failed`; undefined for a code not known. */
export function networkWords(code: string | undefined): string | undefined {
  if (code === undefined) return undefined;
  const known = NETWORK_WORDS[code];
  if (known) return known;
  if (/^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/.test(code)) return 'TLS failed';
  return undefined;
}

/** `network error: connection closed (UND_ERR_SOCKET)`: the words, and the code to search for. */
export function networkErrorText(code: string | undefined, fallback: string): string {
  const words = networkWords(code);
  if (code === undefined) return `network error (${fallback})`;
  return words === undefined ? `network error (${code})` : `network error: ${words} (${code})`;
}
