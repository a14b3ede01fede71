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
    },
  ) {
    super(message);
  }

  get retryable(): boolean {
    return this.details.retryable;
  }
}
